package runner

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docker/docker/client"

	"github.com/idlegpu/idlegpu/scripts/dockertest"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/dns/dnsmessage"
	"golang.org/x/sys/unix"
)

// The egress tests' fake internet: a network namespace behind a veth pair,
// routed from the host. It holds a "public" address and, to prove the
// firewall (not a missing route) stops the jobs, a private one and the
// cloud metadata address, all served by the same listener.
const (
	inetNS        = "idlegpu-inet-test"
	inetHostVeth  = "idlegpu-inet0"
	inetPublic    = "198.51.100.2"
	inetHostAddr  = "198.51.100.1"
	inetPrivate   = "10.203.0.2"
	inetMetadata  = "169.254.169.254"
	egressTestNet = "idlegpu-egress-test"
	egressTestBr  = "idlegpu-egt0"
)

// egressTools skips the test unless it can change the host's network: root,
// and the binaries the egress network and the fake internet use.
func egressTools(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("the egress tests change the host's network: they need root")
	}
	for _, bin := range []string{"dockerd", "iptables", "iptables-restore", "ip", "tc", "nsenter"} {
		if _, err := exec.LookPath(bin); err != nil {
			t.Skipf("the egress tests need %s: %v", bin, err)
		}
	}
	if out, err := exec.Command("iptables", "-w", "-S", "INPUT").CombinedOutput(); err != nil {
		t.Skipf("iptables does not work here: %v: %s", err, out)
	}
	if pid := iptablesDockerd(); pid != "" {
		t.Skipf("dockerd %s already manages iptables on this host; a second one would fight over its chains", pid)
	}
}

// iptablesDockerd is the pid of a running dockerd that manages iptables.
func iptablesDockerd() string {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || len(b) == 0 {
			continue
		}
		args := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
		if filepath.Base(args[0]) == "dockerd" && !strings.Contains(string(b), "--iptables=false") {
			return e.Name()
		}
	}
	return ""
}

// startIptablesDockerd starts a private dockerd that manages iptables (as a
// production daemon does: DOCKER-USER, masquerading) but has no default
// bridge; it is stopped when the test ends. Jobs' names are resolved by
// the fake internet's private resolver.
func startIptablesDockerd(t *testing.T) *client.Client {
	t.Helper()
	cli, err := dockertest.StartPrivate(t, dockertest.Options{Iptables: true, DNS: inetPrivate})
	if err != nil {
		t.Skipf("dockerd with iptables: %v", err)
	}
	dockertest.LogVersion(t, cli)
	return cli
}

// egressExec runs a command the test needs to succeed.
func egressExec(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.Command(args[0], args[1:]...).CombinedOutput()
	require.NoError(t, err, "%s: %s", strings.Join(args, " "), out)
	return string(out)
}

// fakeInternet builds the namespace and its routes, removed when the test ends.
func fakeInternet(t *testing.T) {
	t.Helper()
	_ = exec.Command("ip", "netns", "del", inetNS).Run() // left by an aborted run
	_ = exec.Command("ip", "link", "del", inetHostVeth).Run()
	egressExec(t, "ip", "netns", "add", inetNS)
	t.Cleanup(func() {
		_ = exec.Command("ip", "link", "del", inetHostVeth).Run()
		_ = exec.Command("ip", "netns", "del", inetNS).Run()
	})
	egressExec(t, "ip", "link", "add", inetHostVeth, "type", "veth", "peer", "name", "inet1", "netns", inetNS)
	egressExec(t, "ip", "addr", "add", inetHostAddr+"/24", "dev", inetHostVeth)
	egressExec(t, "ip", "addr", "add", "10.203.0.1/24", "dev", inetHostVeth)
	egressExec(t, "ip", "link", "set", inetHostVeth, "up")
	egressExec(t, "ip", "route", "add", inetMetadata+"/32", "dev", inetHostVeth)
	in := func(args ...string) { egressExec(t, append([]string{"ip", "netns", "exec", inetNS}, args...)...) }
	in("ip", "link", "set", "lo", "up")
	in("ip", "addr", "add", inetPublic+"/24", "dev", "inet1")
	in("ip", "addr", "add", inetPrivate+"/24", "dev", "inet1")
	in("ip", "addr", "add", inetMetadata+"/32", "dev", "inet1")
	in("ip", "link", "set", "inet1", "up")
	in("ip", "route", "add", "default", "via", inetHostAddr)
}

// inNetns runs open on a thread inside the namespace ns: sockets it makes
// stay in that namespace. The thread is given back to the runtime only if
// it is back in the host's namespace.
func inNetns(t *testing.T, ns string, open func() error) {
	t.Helper()
	runtime.LockOSThread()
	host, err := os.Open("/proc/thread-self/ns/net")
	require.NoError(t, err)
	defer host.Close()
	target, err := os.Open(filepath.Join("/run/netns", ns))
	require.NoError(t, err)
	defer target.Close()
	require.NoError(t, unix.Setns(int(target.Fd()), unix.CLONE_NEWNET))
	oerr := open()
	if err := unix.Setns(int(host.Fd()), unix.CLONE_NEWNET); err != nil {
		t.Fatalf("back to the host's namespace: %v", err) // the thread stays locked and dies
	}
	runtime.UnlockOSThread()
	require.NoError(t, oerr)
}

// listenIn opens a TCP listener inside the namespace ns.
func listenIn(t *testing.T, ns, addr string) net.Listener {
	t.Helper()
	var l net.Listener
	inNetns(t, ns, func() (err error) {
		l, err = net.Listen("tcp4", addr)
		return err
	})
	t.Cleanup(func() { l.Close() })
	return l
}

// fakeResolver answers every A question with one address over UDP inside
// the namespace ns, and counts the questions.
type fakeResolver struct {
	answer [4]byte
	mu     sync.Mutex
	asked  []string
}

func (r *fakeResolver) serve(t *testing.T, ns, addr string) {
	t.Helper()
	var pc net.PacketConn
	inNetns(t, ns, func() (err error) {
		pc, err = net.ListenPacket("udp4", addr)
		return err
	})
	t.Cleanup(func() { pc.Close() })
	go func() {
		buf := make([]byte, 1500)
		for {
			n, from, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			if reply, ok := r.reply(buf[:n]); ok {
				_, _ = pc.WriteTo(reply, from)
			}
		}
	}()
}

func (r *fakeResolver) reply(query []byte) ([]byte, bool) {
	var p dnsmessage.Parser
	h, err := p.Start(query)
	if err != nil {
		return nil, false
	}
	q, err := p.Question()
	if err != nil {
		return nil, false
	}
	r.mu.Lock()
	r.asked = append(r.asked, q.Name.String()+" "+q.Type.String())
	r.mu.Unlock()
	b := dnsmessage.NewBuilder(nil, dnsmessage.Header{ID: h.ID, Response: true, Authoritative: true, RecursionDesired: h.RecursionDesired})
	_ = b.StartQuestions()
	_ = b.Question(q)
	_ = b.StartAnswers()
	if q.Type == dnsmessage.TypeA {
		_ = b.AResource(dnsmessage.ResourceHeader{Name: q.Name, Class: dnsmessage.ClassINET, TTL: 60}, dnsmessage.AResource{A: r.answer})
	}
	msg, err := b.Finish()
	return msg, err == nil
}

func (r *fakeResolver) Asked() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.asked...)
}

// listenHost opens a TCP listener in the host's namespace.
func listenHost(t *testing.T, addr string) net.Listener {
	t.Helper()
	l, err := net.Listen("tcp4", addr)
	require.NoError(t, err)
	t.Cleanup(func() { l.Close() })
	return l
}

// pongServer answers each connection's first line with "pong" and records
// the local address each connection reached.
type pongServer struct {
	mu      sync.Mutex
	reached []string
}

func (s *pongServer) serve(l net.Listener) {
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		s.reached = append(s.reached, c.LocalAddr().String())
		s.mu.Unlock()
		go func() {
			defer c.Close()
			_ = c.SetDeadline(time.Now().Add(10 * time.Second))
			if _, err := bufio.NewReader(c).ReadString('\n'); err == nil {
				_, _ = io.WriteString(c, "pong\n")
			}
		}()
	}
}

func (s *pongServer) Reached() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.reached...)
}

// bulkTransfer is one timed connection to a bulk server.
type bulkTransfer struct {
	bytes    int64
	duration time.Duration
}

// sinkOrSource accepts one connection: it reads it to the end, or, with
// send > 0, writes send bytes and closes. The time runs from the first byte
// read (or from the accept when sending) to the end.
func sinkOrSource(l net.Listener, send int64) <-chan bulkTransfer {
	done := make(chan bulkTransfer, 1)
	go func() {
		c, err := l.Accept()
		if err != nil {
			done <- bulkTransfer{bytes: -1}
			return
		}
		defer c.Close()
		_ = c.SetDeadline(time.Now().Add(60 * time.Second))
		if send > 0 {
			start := time.Now()
			n, _ := io.Copy(c, io.LimitReader(zeroes{}, send))
			_ = c.(*net.TCPConn).CloseWrite()
			// The job reads to the end before closing: its close marks arrival.
			_, _ = io.Copy(io.Discard, c)
			done <- bulkTransfer{bytes: n, duration: time.Since(start)}
			return
		}
		first := make([]byte, 1)
		if _, err := io.ReadFull(c, first); err != nil {
			done <- bulkTransfer{bytes: 0}
			return
		}
		start := time.Now()
		n, _ := io.Copy(io.Discard, c)
		done <- bulkTransfer{bytes: n + 1, duration: time.Since(start)}
	}()
	return done
}

type zeroes struct{}

func (zeroes) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// iptablesRules lists a chain's rules, "" when the chain does not exist.
func iptablesRules(chain string) (string, error) {
	out, err := exec.Command("iptables", "-w", "-S").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("iptables -S: %w: %s", err, out)
	}
	var rules []string
	for _, line := range strings.Split(string(out), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "-A" && f[1] == chain {
			rules = append(rules, line)
		}
	}
	return strings.Join(rules, "\n"), nil
}
