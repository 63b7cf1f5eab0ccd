package runner

import (
	"archive/tar"
	"bytes"
	"context"
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/docker/docker/api/types/image"
	"github.com/docker/docker/client"
	"github.com/stretchr/testify/require"
)

// testImageName is the tag of the busybox image the tests import.
const testImageName = "idlegpu-test/busybox:latest"

// dockerDaemon returns a client of a Docker daemon for the tests: the one
// DOCKER_HOST or /var/run/docker.sock names if it answers, else a private
// dockerd started here (root only) and stopped when the test ends. It skips
// the test when neither is possible. It never installs anything.
func dockerDaemon(t *testing.T) *client.Client {
	t.Helper()
	var reasons []string
	if os.Getenv("DOCKER_HOST") != "" || fileExists("/var/run/docker.sock") {
		cli, err := client.NewClientWithOpts(client.FromEnv, client.WithAPIVersionNegotiation())
		if err == nil {
			if err = ping(cli, 5*time.Second); err == nil {
				t.Cleanup(func() { cli.Close() })
				logVersion(t, cli)
				return cli
			}
			cli.Close()
		}
		reasons = append(reasons, fmt.Sprintf("the configured daemon does not answer (%v)", err))
	}
	cli, err := startPrivateDockerd(t)
	if err == nil {
		logVersion(t, cli)
		return cli
	}
	reasons = append(reasons, err.Error())
	t.Skipf("no Docker daemon can run here: %s", strings.Join(reasons, "; "))
	return nil
}

// logVersion logs the daemon's version and the API version negotiated.
func logVersion(t *testing.T, cli *client.Client) {
	v, err := cli.ServerVersion(context.Background())
	require.NoError(t, err)
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

// startPrivateDockerd starts dockerd with its own data, exec root and socket
// under a short temporary directory (a unix socket path must stay under 108
// bytes), without iptables or a bridge: the tests use no network.
func startPrivateDockerd(t *testing.T) (*client.Client, error) {
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
	cmd := exec.Command(bin,
		"--data-root", filepath.Join(dir, "data"), "--exec-root", filepath.Join(dir, "exec"),
		"-H", "unix://"+sock, "--pidfile", filepath.Join(dir, "dockerd.pid"),
		"--iptables=false", "--ip-masq=false", "--bridge=none")
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

// importBusybox imports a one-binary image, busybox (static) with sh, echo,
// sleep, env, id, dd, seq, touch, cat and ls linked to it, straight from a
// tarball: no registry needed. It returns the image id "sha256:<hex>".
// Imported images have no RepoDigest, so the tests run it by id with
// RequireDigest off; digest checking has its own tests.
func importBusybox(t *testing.T, cli *client.Client) string {
	t.Helper()
	const bin = "/bin/busybox"
	if err := staticELF(bin); err != nil {
		t.Skipf("no static busybox to build the test image (apt-get install busybox-static): %v", err)
	}
	body, err := os.ReadFile(bin)
	require.NoError(t, err)
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	add := func(h *tar.Header, data []byte) {
		h.ModTime = time.Unix(0, 0)
		require.NoError(t, tw.WriteHeader(h))
		if len(data) > 0 {
			_, err := tw.Write(data)
			require.NoError(t, err)
		}
	}
	for _, d := range []string{"bin/", "dev/", "proc/", "sys/", "etc/"} {
		add(&tar.Header{Typeflag: tar.TypeDir, Name: d, Mode: 0o755}, nil)
	}
	// As in standard images: runc gives a tmpfs on /tmp this mode.
	add(&tar.Header{Typeflag: tar.TypeDir, Name: "tmp/", Mode: 0o1777}, nil)
	add(&tar.Header{Typeflag: tar.TypeReg, Name: "bin/busybox", Mode: 0o755, Size: int64(len(body))}, body)
	for _, l := range []string{"sh", "echo", "sleep", "env", "id", "dd", "seq", "touch", "cat", "ls"} {
		add(&tar.Header{Typeflag: tar.TypeSymlink, Name: "bin/" + l, Linkname: "busybox", Mode: 0o777}, nil)
	}
	require.NoError(t, tw.Close())

	ctx := context.Background()
	rc, err := cli.ImageImport(ctx, image.ImportSource{Source: &buf, SourceName: "-"}, testImageName, image.ImportOptions{})
	require.NoError(t, err)
	require.NoError(t, pullError(rc), "import")
	rc.Close()
	info, err := cli.ImageInspect(ctx, testImageName)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(info.ID, "sha256:"), info.ID)
	require.Empty(t, info.RepoDigests, "an imported image has no registry digest")
	t.Cleanup(func() {
		// Containers of a concurrent run on a shared daemon may still use it.
		_, _ = cli.ImageRemove(context.Background(), info.ID, image.RemoveOptions{Force: false, PruneChildren: true})
	})
	return info.ID
}

// staticELF fails unless path is an ELF binary with no program interpreter.
func staticELF(path string) error {
	f, err := elf.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return fmt.Errorf("%s is dynamically linked", path)
		}
	}
	return nil
}
