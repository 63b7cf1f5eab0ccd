package chartcheck

import (
	"bytes"
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// testMnemonic is BIP-39's all-zero-entropy test vector: a valid key no
// one holds anything with.
const testMnemonic = "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon " +
	"abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon art"

// TestSetupScript runs the setup container's script with the agent, as the
// kubelet would on a node's first and later starts: the key is imported
// from the node's mnemonic, the endpoint's certificate made and agent.toml
// installed, and register's failure (no GPU or chain here) leaves the
// start to the agent; a later start needs no mnemonic; a new node without
// one is refused.
func TestSetupScript(t *testing.T) {
	bin := os.Getenv(agentEnv)
	if bin == "" {
		t.Skip(agentEnv + " is not set: the setup script is not run (make helm-check sets it)")
	}
	n := newNode(t, bin)

	// First start: the mnemonic imports the key.
	writeFile(t, filepath.Join(n.secrets, "mnemonic-node-a"), testMnemonic+"\n")
	out, err := n.setup()
	if err != nil {
		t.Fatalf("first start: %v\n%s", err, out)
	}
	if !strings.Contains(out, "register failed (above): starting the agent all the same") || strings.Contains(out, "unknown flag") {
		t.Errorf("register's failure must not stop the setup, and its flags must parse:\n%s", out)
	}
	if !strings.Contains(out, `agent key "agent": idle1r5v5srda7xfth3hn2s26txvrcrntldju98v7j7`) || !strings.Contains(out, "tls_cert_sha256") {
		t.Errorf("the first start's log does not name the key's address and the certificate's pin:\n%s", out)
	}
	for _, f := range []string{"keyring-file/agent.info", "endpoint.crt", "endpoint.key"} {
		if _, err := os.Stat(filepath.Join(n.home, f)); err != nil {
			t.Errorf("after the first start: %v", err)
		}
	}
	got, err := os.ReadFile(filepath.Join(n.home, "agent.toml"))
	if err != nil || string(got) != n.config {
		t.Errorf("agent.toml in the home is not the chart's (%v)", err)
	}
	if st, err := os.Stat(filepath.Join(n.home, "agent.toml")); err != nil {
		t.Error(err)
	} else if st.Mode().Perm() != 0o600 {
		t.Errorf("agent.toml has mode %v, want 0600", st.Mode().Perm())
	}

	// A later start: the key is there, the mnemonic may be gone.
	if err := os.Remove(filepath.Join(n.secrets, "mnemonic-node-a")); err != nil {
		t.Fatal(err)
	}
	if out, err := n.setup(); err != nil {
		t.Fatalf("second start without the mnemonic: %v\n%s", err, out)
	}

	// A new node with no mnemonic in the Secret: refused, saying what to add.
	fresh := newNode(t, bin)
	out, err = fresh.setup()
	if err == nil || !strings.Contains(out, "has no mnemonic-node-a") {
		t.Errorf("a node without key or mnemonic: %v\n%s", err, out)
	}
}

// node is a node's files for the setup script, in a temp directory.
type node struct {
	bin, dir, home, secrets, config, script string
	socket                                  string
}

// newNode renders the chart for a node directory under a temp dir, with
// the Secret's and ConfigMap's files where the pod would mount them.
func newNode(t *testing.T, bin string) *node {
	t.Helper()
	dir := t.TempDir()
	n := &node{bin: bin, dir: dir, secrets: filepath.Join(dir, "secrets"), socket: filepath.Join(dir, "docker.sock")}
	vals := map[string]any{
		"home":   map[string]any{"hostPath": filepath.Join(dir, "node")},
		"docker": map[string]any{"socketPath": n.socket},
		// register runs with every flag the chart may give it, and fails
		// (no GPU here, and the chain's node is a closed port).
		"register": map[string]any{"region": "eu-de-fra1", "bond": "400000000ugpu", "moniker": "pool b"},
		"config":   map[string]any{"chain": map[string]any{"rpc": "tcp://127.0.0.1:1"}},
	}
	r, err := Render(chartDir, vals, release)
	if err != nil {
		t.Fatal(err)
	}
	objs, err := Decode(r.Manifests)
	if err != nil {
		t.Fatal(err)
	}
	cm, err := Find[*corev1.ConfigMap](objs, release.Name)
	if err != nil {
		t.Fatal(err)
	}
	n.home, n.config = filepath.Join(dir, "node", ".idlegpu-agent"), cm.Data["agent.toml"]
	script := strings.NewReplacer("/run/secrets/idlegpu-agent", n.secrets, "/etc/idlegpu-agent", filepath.Join(dir, "config"), "/tmp/init.out", filepath.Join(dir, "init.out")).Replace(cm.Data["setup.sh"])
	n.script = filepath.Join(dir, "config", "setup.sh")
	writeFile(t, n.script, script)
	writeFile(t, filepath.Join(dir, "config", "agent.toml"), n.config)
	writeFile(t, filepath.Join(n.secrets, "passphrase"), "test-passphrase\n")
	if err := os.MkdirAll(filepath.Join(dir, "node"), 0o700); err != nil {
		t.Fatal(err)
	}
	// The node's Docker socket: setup only checks that it may write it.
	ln, err := net.Listen("unix", n.socket)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	// idlegpu-agent on the PATH, as in the image.
	if err := os.Symlink(bin, filepath.Join(dir, "idlegpu-agent")); err != nil {
		t.Fatal(err)
	}
	return n
}

// setup runs the script as the setup container would on node-a.
func (n *node) setup() (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/bin/sh", n.script)
	cmd.Env = []string{"PATH=" + n.dir + ":/usr/bin:/bin", "HOME=" + filepath.Join(n.dir, "node"), "NODE_NAME=node-a",
		"ENDPOINT_HOST=gpu.example.com", "DOCKER_HOST=unix://" + n.socket}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}
