package dockertest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/docker/docker/client"
)

// hostNetLock is the file whose lock a test holds while it changes the
// host's network. go test runs packages as parallel processes, and two
// iptables-managing dockerds (or two agents' egress firewalls) would fight
// over the host's chains, so such tests take it in turn.
var hostNetLock = filepath.Join(os.TempDir(), "idlegpu-dockertest-hostnet.lock")

// HostNetwork skips the test unless it may change the host's network (root,
// ip, tc, nsenter, dockerd and a working iptables), then holds the
// host-wide lock of such tests until the test ends, and skips if a dockerd
// this package did not start manages iptables here: a second one would
// fight over its chains.
func HostNetwork(t testing.TB) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("this test changes the host's network: it needs root")
	}
	for _, bin := range []string{"dockerd", "iptables", "iptables-restore", "ip", "tc", "nsenter"} {
		if _, err := exec.LookPath(bin); err != nil {
			t.Skipf("this test needs %s: %v", bin, err)
		}
	}
	if out, err := exec.Command("iptables", "-w", "-S", "INPUT").CombinedOutput(); err != nil {
		t.Skipf("iptables does not work here: %v: %s", err, out)
	}
	f, err := os.OpenFile(hostNetLock, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		t.Fatalf("host network lock: %v", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Logf("waiting for another test's use of the host network (%s)", hostNetLock)
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
			f.Close()
			t.Fatalf("host network lock: %v", err)
		}
	}
	// Registered first, so it runs last: after the daemons and namespaces
	// the test made are gone.
	t.Cleanup(func() { f.Close() })
	if pid := iptablesDockerd(); pid != "" {
		t.Skipf("dockerd %s already manages iptables on this host; a second one would fight over its chains", pid)
	}
}

// IptablesDaemon is HostNetwork, then a private dockerd that manages
// iptables as a production daemon does (DOCKER-USER, masquerading) but has
// no default bridge; it is stopped when the test ends. dns is the resolver
// its containers get ("": the host's). bridges are the host interfaces of
// the networks the test makes on it: removed before it starts (an aborted
// run leaves them, and the next would take them over) and after it stops.
func IptablesDaemon(t testing.TB, dns string, bridges ...string) *client.Client {
	t.Helper()
	HostNetwork(t)
	removeBridges := func() {
		for _, b := range bridges {
			_ = exec.Command("ip", "link", "del", b).Run()
		}
	}
	removeBridges()
	t.Cleanup(removeBridges)
	cli, err := StartPrivate(t, Options{Iptables: true, DNS: dns})
	if err != nil {
		t.Skipf("dockerd with iptables: %v", err)
	}
	LogVersion(t, cli)
	return cli
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
