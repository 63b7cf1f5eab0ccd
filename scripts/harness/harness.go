// Package harness starts real idlegpud and idlegpu-agent processes on
// loopback and drives them through their CLIs: the end-to-end tests, `make
// demo` and `make bench` share it. Every helper fails its T on error. It
// imports neither testing nor testify, so the programs built on it carry no
// test code; harnesstest holds what only tests need.
package harness

import (
	"bytes"
	"encoding/json"
	"net"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// T is what the harness needs of a *testing.T; programs use Program.
type T interface {
	Errorf(format string, args ...any)
	FailNow()
	Helper()
	Cleanup(func())
	Logf(format string, args ...any)
	TempDir() string
}

// Binaries are the programs under test.
type Binaries struct{ Idlegpud, Agent string }

// noError fails t when err is set, saying what failed.
func noError(t T, err error, format string, args ...any) {
	t.Helper()
	if err != nil {
		fail(t, format+": %v", append(args, err)...)
	}
}

// fail reports and stops t, as require does.
func fail(t T, format string, args ...any) {
	t.Helper()
	t.Errorf(format, args...)
	t.FailNow()
}

// FreePorts returns n ports free on loopback right now.
func FreePorts(t T, n int) []int {
	t.Helper()
	ports := make([]int, n)
	for i := range ports {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		noError(t, err, "listen on loopback")
		defer l.Close()
		ports[i] = l.Addr().(*net.TCPAddr).Port
	}
	return ports
}

// Proc is a started binary whose output is kept.
type Proc struct {
	cmd *exec.Cmd
	// group: the process leads a process group of its own, and Stop
	// signals the whole group (StartGroup).
	group bool
	mu    sync.Mutex
	out   bytes.Buffer
	done  chan struct{}
}

func (p *Proc) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.Write(b)
}

// Output is everything the process wrote so far.
func (p *Proc) Output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.String()
}

// Start runs bin with args in the background.
func Start(t T, bin string, args ...string) *Proc {
	t.Helper()
	return start(t, false, bin, args...)
}

func start(t T, group bool, bin string, args ...string) *Proc {
	t.Helper()
	p := &Proc{cmd: exec.Command(bin, args...), done: make(chan struct{}), group: group}
	if group {
		p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	}
	p.cmd.Stdout, p.cmd.Stderr = p, p
	noError(t, p.cmd.Start(), "start %s", bin)
	go func() { _ = p.cmd.Wait(); close(p.done) }()
	return p
}

// StartGroup is Start for a program that runs another and forwards it
// signals, such as cosmovisor running idlegpud: it leads a process group of
// its own, and Stop signals the whole group, so the child stops even when
// the parent's forwarding misses the signal.
func StartGroup(t T, bin string, args ...string) *Proc {
	t.Helper()
	return start(t, true, bin, args...)
}

// Pid is the process's id (to sample its memory from /proc).
func (p *Proc) Pid() int { return p.cmd.Process.Pid }

// Stop sends sig and waits for the process to end.
func (p *Proc) Stop(t T, sig syscall.Signal) {
	t.Helper()
	if p.group {
		_ = syscall.Kill(-p.cmd.Process.Pid, sig)
	} else {
		_ = p.cmd.Process.Signal(sig)
	}
	select {
	case <-p.done:
	case <-time.After(30 * time.Second):
		if p.group {
			_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		}
		_ = p.cmd.Process.Kill()
		fail(t, "process did not stop in 30s: %s", p.cmd.Path)
	}
}

// WaitFor polls cond every 300 ms until it holds or timeout passes.
func WaitFor(t T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if !time.Now().Before(deadline) {
			fail(t, "waited %s for %s", timeout, what)
		}
		time.Sleep(300 * time.Millisecond)
	}
}

// Tail is the last lines of s.
func Tail(s string, lines int) string {
	all := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(all) > lines {
		all = all[len(all)-lines:]
	}
	return strings.Join(all, "\n")
}

// decodeJSON decodes b, keeping numbers as written.
func decodeJSON(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	return dec.Decode(v)
}
