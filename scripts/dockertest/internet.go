package dockertest

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// The fake internet: a network namespace behind a veth pair, routed from
// the host. It holds a "public" address and, to prove a firewall (not a
// missing route) stops jobs, a private one and the cloud metadata address,
// all reached through the same interface. Take HostNetwork first.
const (
	InternetNS       = "idlegpu-inet-test"
	InternetPublic   = "198.51.100.2"
	InternetHost     = "198.51.100.1" // the host's end of the veth pair
	InternetPrivate  = "10.203.0.2"
	InternetMetadata = "169.254.169.254"
	internetHostVeth = "idlegpu-inet0"
)

// FakeInternet builds the namespace and its routes, removed when the test ends.
func FakeInternet(t testing.TB) {
	t.Helper()
	_ = exec.Command("ip", "netns", "del", InternetNS).Run() // left by an aborted run
	_ = exec.Command("ip", "link", "del", internetHostVeth).Run()
	hostExec(t, "ip", "netns", "add", InternetNS)
	t.Cleanup(func() {
		_ = exec.Command("ip", "link", "del", internetHostVeth).Run()
		_ = exec.Command("ip", "netns", "del", InternetNS).Run()
	})
	hostExec(t, "ip", "link", "add", internetHostVeth, "type", "veth", "peer", "name", "inet1", "netns", InternetNS)
	hostExec(t, "ip", "addr", "add", InternetHost+"/24", "dev", internetHostVeth)
	hostExec(t, "ip", "addr", "add", "10.203.0.1/24", "dev", internetHostVeth)
	hostExec(t, "ip", "link", "set", internetHostVeth, "up")
	hostExec(t, "ip", "route", "add", InternetMetadata+"/32", "dev", internetHostVeth)
	in := func(args ...string) { hostExec(t, append([]string{"ip", "netns", "exec", InternetNS}, args...)...) }
	in("ip", "link", "set", "lo", "up")
	in("ip", "addr", "add", InternetPublic+"/24", "dev", "inet1")
	in("ip", "addr", "add", InternetPrivate+"/24", "dev", "inet1")
	in("ip", "addr", "add", InternetMetadata+"/32", "dev", "inet1")
	in("ip", "link", "set", "inet1", "up")
	in("ip", "route", "add", "default", "via", InternetHost)
}

// InInternet runs open on a thread inside the fake internet's namespace:
// sockets it makes stay there. The thread is given back to the runtime
// only if it is back in the host's namespace.
func InInternet(t testing.TB, open func() error) {
	t.Helper()
	runtime.LockOSThread()
	host, err := os.Open("/proc/thread-self/ns/net")
	if err != nil {
		t.Fatal(err)
	}
	defer host.Close()
	target, err := os.Open(filepath.Join("/run/netns", InternetNS))
	if err != nil {
		t.Fatal(err)
	}
	defer target.Close()
	if err := unix.Setns(int(target.Fd()), unix.CLONE_NEWNET); err != nil {
		t.Fatalf("into %s: %v", InternetNS, err)
	}
	oerr := open()
	if err := unix.Setns(int(host.Fd()), unix.CLONE_NEWNET); err != nil {
		t.Fatalf("back to the host's namespace: %v", err) // the thread stays locked and dies
	}
	runtime.UnlockOSThread()
	if oerr != nil {
		t.Fatal(oerr)
	}
}

// ListenInternet opens a TCP listener inside the fake internet, closed
// when the test ends.
func ListenInternet(t testing.TB, addr string) net.Listener {
	t.Helper()
	var l net.Listener
	InInternet(t, func() (err error) {
		l, err = net.Listen("tcp4", addr)
		return err
	})
	t.Cleanup(func() { l.Close() })
	return l
}

// hostExec runs a command the test needs to succeed.
func hostExec(t testing.TB, args ...string) string {
	t.Helper()
	out, err := exec.Command(args[0], args[1:]...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v: %s", strings.Join(args, " "), err, out)
	}
	return string(out)
}
