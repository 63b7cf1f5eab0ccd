// Package dockertest gives tests a real Docker daemon and images without a
// network: the configured daemon or a private dockerd started for the test
// (root only), a busybox image built from the host's static busybox, and a
// read-only registry on loopback that serves it by digest, so a job can be
// pulled pinned as in production. It never installs anything: a test skips
// when its daemon cannot run here, and says why.
package dockertest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/docker/docker/client"
)

// Options are a private dockerd's.
type Options struct {
	// Iptables lets the daemon manage iptables and masquerading, as a
	// production daemon does; off, it touches no firewall rule and no two
	// such daemons fight over its chains.
	Iptables bool
	// DNS is the resolver containers get ("": the daemon's default).
	DNS string
}

// Daemon returns a client of a Docker daemon for the test: the one
// DOCKER_HOST or /var/run/docker.sock names if it answers, else a private
// dockerd without iptables started here and stopped when the test ends. It
// skips the test when neither is possible.
func Daemon(t testing.TB) *client.Client {
	t.Helper()
	var reasons []string
	if os.Getenv("DOCKER_HOST") != "" || fileExists("/var/run/docker.sock") {
		cli, err := client.NewClientWithOpts(client.FromEnv, client.WithAPIVersionNegotiation())
		if err == nil {
			if err = ping(cli, 5*time.Second); err == nil {
				t.Cleanup(func() { cli.Close() })
				LogVersion(t, cli)
				return cli
			}
			cli.Close()
		}
		reasons = append(reasons, fmt.Sprintf("the configured daemon does not answer (%v)", err))
	}
	cli, err := StartPrivate(t, Options{})
	if err == nil {
		LogVersion(t, cli)
		return cli
	}
	reasons = append(reasons, err.Error())
	t.Skipf("no Docker daemon can run here: %s", strings.Join(reasons, "; "))
	return nil
}

// LogVersion logs the daemon's version and the API version negotiated.
func LogVersion(t testing.TB, cli *client.Client) {
	t.Helper()
	v, err := cli.ServerVersion(context.Background())
	if err != nil {
		t.Fatalf("docker version: %v", err)
	}
	t.Logf("docker daemon %s (API %s), client speaking API %s", v.Version, v.APIVersion, cli.ClientVersion())
}

func ping(cli *client.Client, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	_, err := cli.Ping(ctx)
	return err
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// StartPrivate starts dockerd with its own data, exec root and socket
// under a short temporary directory (a unix socket path must stay under
// 108 bytes) and no default bridge; it is stopped when the test ends. Its
// client's DaemonHost() is the DOCKER_HOST another process can use.
func StartPrivate(t testing.TB, o Options) (*client.Client, error) {
	t.Helper()
	bin, err := exec.LookPath("dockerd")
	if err != nil {
		return nil, errors.New("no dockerd binary (apt-get install docker.io)")
	}
	if os.Geteuid() != 0 {
		return nil, errors.New("dockerd is installed but starting it needs root")
	}
	dir, err := os.MkdirTemp("", "idlegpu-dockerd-")
	if err != nil {
		return nil, err
	}
	sock := filepath.Join(dir, "docker.sock")
	logPath := filepath.Join(dir, "dockerd.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	args := []string{"--data-root", filepath.Join(dir, "data"), "--exec-root", filepath.Join(dir, "exec"),
		"-H", "unix://" + sock, "--pidfile", filepath.Join(dir, "dockerd.pid"), "--bridge=none"}
	if o.Iptables {
		args = append(args, "--iptables=true", "--ip-masq=true")
	} else {
		args = append(args, "--iptables=false", "--ip-masq=false")
	}
	if o.DNS != "" {
		args = append(args, "--dns", o.DNS)
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		os.RemoveAll(dir)
		return nil, fmt.Errorf("start dockerd: %w", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	stop := func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			// dockerd's own containerd is in its process group.
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
		}
		logFile.Close()
		if err := os.RemoveAll(dir); err != nil {
			t.Logf("private dockerd: leaving %s: %v", dir, err)
		}
	}
	cli, err := client.NewClientWithOpts(client.WithHost("unix://"+sock), client.WithAPIVersionNegotiation())
	if err != nil {
		stop()
		return nil, err
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		if err = ping(cli, 2*time.Second); err == nil {
			break
		}
		select {
		case werr := <-exited:
			exited <- werr
			tail := logTail(logPath)
			stop()
			return nil, fmt.Errorf("dockerd exited (%v): %s", werr, tail)
		default:
		}
		if time.Now().After(deadline) {
			tail := logTail(logPath)
			stop()
			return nil, fmt.Errorf("dockerd did not answer within 60 s: %s", tail)
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Cleanup(func() {
		cli.Close()
		stop()
	})
	return cli, nil
}

// logTail is the last lines of a daemon log, for skip messages.
func logTail(path string) string {
	b, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) > 5 {
		lines = lines[len(lines)-5:]
	}
	return strings.Join(lines, " | ")
}
