package imagetest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/client"
	"github.com/docker/docker/pkg/stdcopy"
)

// agentUID is the image's agent user (agent/Dockerfile's AGENT_UID): the
// owner its home and its passphrase file must have on the host.
const agentUID = 10001

// secretPath is where the keyring passphrase is mounted, as Docker and
// Compose mount a secret.
const secretPath = "/run/secrets/keyring-passphrase"

// provider is the agent image as a provider runs it (deploy/image/README.md):
// the host's network and PID namespace, the daemon's socket with its group,
// the home at the same path on both sides and the passphrase as a secret.
// Each command runs in a container of its own, as `docker run --rm` does.
type provider struct {
	t          *testing.T
	cli        *client.Client
	image      string
	home       string   // the agent's home, the same path on the host and inside
	passphrase string   // the host file mounted at secretPath
	socket     string   // the daemon's socket on the host
	gid        string   // the socket's group, added to the agent user
	env        []string // the containers' environment
}

// newProvider prepares an agent home and a passphrase file owned by the
// image's user, as an operator does before the first run.
func newProvider(t *testing.T, cli *client.Client, image string) *provider {
	t.Helper()
	u, err := url.Parse(cli.DaemonHost())
	if err != nil || u.Scheme != "unix" {
		t.Fatalf("the test's daemon must be on a unix socket to be mounted into the agent, got %q", cli.DaemonHost())
	}
	var st syscall.Stat_t
	if err := syscall.Stat(u.Path, &st); err != nil {
		t.Fatalf("stat the daemon's socket: %v", err)
	}
	dir := t.TempDir()
	p := &provider{t: t, cli: cli, image: image, home: dir + "/home", passphrase: dir + "/keyring-passphrase",
		socket: u.Path, gid: strconv.FormatUint(uint64(st.Gid), 10)}
	if err := os.Mkdir(p.home, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p.passphrase, []byte("image e2e keyring passphrase\n"), 0o400); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{p.home, p.passphrase} {
		if err := os.Chown(f, agentUID, agentUID); err != nil {
			t.Fatalf("give %s to the image's user: %v", f, err)
		}
	}
	return p
}

// configs are the container's configuration for args.
func (p *provider) configs(args []string) (*container.Config, *container.HostConfig) {
	return &container.Config{Image: p.image, Cmd: append(args, "--home", p.home), Env: p.env},
		&container.HostConfig{
			NetworkMode: "host",
			PidMode:     "host",
			GroupAdd:    []string{p.gid},
			Binds: []string{
				p.socket + ":/var/run/docker.sock",
				p.home + ":" + p.home,
				p.passphrase + ":" + secretPath + ":ro",
			},
		}
}

// run runs one agent command in a fresh container to its end and returns
// its output and exit code.
func (p *provider) run(args ...string) (string, int64) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cfg, hc := p.configs(args)
	created, err := p.cli.ContainerCreate(ctx, cfg, hc, nil, nil, "")
	if err != nil {
		p.t.Fatalf("create the container for %v: %v", args, err)
	}
	defer func() {
		_ = p.cli.ContainerRemove(context.Background(), created.ID, container.RemoveOptions{Force: true})
	}()
	waitC, errC := p.cli.ContainerWait(ctx, created.ID, container.WaitConditionNextExit)
	if err := p.cli.ContainerStart(ctx, created.ID, container.StartOptions{}); err != nil {
		p.t.Fatalf("start the container for %v: %v", args, err)
	}
	var code int64
	select {
	case w := <-waitC:
		code = w.StatusCode
	case err := <-errC:
		p.t.Fatalf("wait for the container of %v: %v", args, err)
	}
	return p.logs(created.ID), code
}

// must runs an agent command that must succeed and returns its output.
func (p *provider) must(args ...string) string {
	p.t.Helper()
	out, code := p.run(args...)
	if code != 0 {
		p.t.Fatalf("idlegpu-agent %v in the image exited %d:\n%s", args, code, out)
	}
	return out
}

// start runs the daemon (`run`) in a detached container named name; the
// test's end stops it as `docker stop` does (SIGTERM, 30 s) and removes it.
func (p *provider) start(name string) string {
	p.t.Helper()
	ctx := context.Background()
	cfg, hc := p.configs([]string{"run"})
	created, err := p.cli.ContainerCreate(ctx, cfg, hc, nil, nil, name)
	if err != nil {
		p.t.Fatalf("create the agent's container: %v", err)
	}
	p.t.Cleanup(func() {
		timeout := 30
		if err := p.cli.ContainerStop(context.Background(), created.ID, container.StopOptions{Timeout: &timeout}); err != nil {
			p.t.Logf("stop the agent's container: %v", err)
		}
		_ = p.cli.ContainerRemove(context.Background(), created.ID, container.RemoveOptions{Force: true})
	})
	if err := p.cli.ContainerStart(ctx, created.ID, container.StartOptions{}); err != nil {
		p.t.Fatalf("start the agent's container: %v", err)
	}
	return created.ID
}

// logs is a container's output, stdout and stderr interleaved.
func (p *provider) logs(id string) string {
	rc, err := p.cli.ContainerLogs(context.Background(), id, container.LogsOptions{ShowStdout: true, ShowStderr: true})
	if err != nil {
		return fmt.Sprintf("(logs: %v)", err)
	}
	defer rc.Close()
	var out bytes.Buffer
	if _, err := stdcopy.StdCopy(&out, &out, rc); err != nil && err != io.EOF {
		fmt.Fprintf(&out, "(logs: %v)", err)
	}
	return out.String()
}

// health is the container's HEALTHCHECK status ("" before the image's
// first probe, or without a HEALTHCHECK).
func (p *provider) health(id string) string {
	info, err := p.cli.ContainerInspect(context.Background(), id)
	if err != nil || info.State == nil || info.State.Health == nil {
		return ""
	}
	return info.State.Health.Status
}
