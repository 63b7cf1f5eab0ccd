package chartcheck

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// agentEnv names the idlegpu-agent binary that judges the rendered
// agent.toml (make helm-check sets it to build/idlegpu-agent).
const agentEnv = "IDLEGPU_AGENT"

// TestAgentAcceptsConfig hands each value set's agent.toml to the agent
// itself: `idlegpu-agent doctor` loads it exactly as `run` does (unknown
// settings, wrong types and invalid values refused) before checking the
// machine. A template that writes a setting the agent does not know, or a
// number as a float, would otherwise only show as pods failing on every
// node.
func TestAgentAcceptsConfig(t *testing.T) {
	bin := os.Getenv(agentEnv)
	if bin == "" {
		t.Skip(agentEnv + " is not set: the rendered agent.toml is not checked by the agent (make helm-check sets it)")
	}
	for _, vs := range valueSets {
		t.Run(vs.name, func(t *testing.T) {
			if err := doctor(t, bin, agentToml(t, vs.file)); err != nil {
				t.Error(err)
			}
		})
	}
	// The check itself must be able to fail.
	broken := map[string]func(string) string{
		"an unknown setting": func(s string) string { return strings.Replace(s, "[chain]\n", "[chain]\nrpc_timeout = \"5s\"\n", 1) },
		"a float for an integer": func(s string) string {
			return strings.Replace(s, "max_temp_c = 85\n", "max_temp_c = 85.0\n", 1)
		},
	}
	for name, edit := range broken {
		t.Run(name, func(t *testing.T) {
			cfg := agentToml(t, "")
			if edit(cfg) == cfg {
				t.Fatal("the edit changed nothing: the chart's agent.toml moved on")
			}
			if err := doctor(t, bin, edit(cfg)); err == nil {
				t.Error("the agent accepted it")
			}
		})
	}
}

// agentToml renders a value set's agent.toml with the chain node pointed
// at a closed local port, so that doctor's chain check fails at once.
func agentToml(t *testing.T, file string) string {
	t.Helper()
	vals := overlay(values(t, file), map[string]any{"config": map[string]any{"chain": map[string]any{
		"rpc": "tcp://127.0.0.1:1", "rpcFallbacks": []any{},
	}}})
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
	return cm.Data["agent.toml"]
}

// doctor runs `idlegpu-agent doctor` on a home holding cfg; nil when the
// agent loaded the configuration (its checks of this machine, which has
// no GPU, Docker or chain for it, may fail).
func doctor(t *testing.T, bin, cfg string) error {
	t.Helper()
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "agent.toml"), []byte(cfg), 0o600); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "doctor", "--home", home)
	cmd.Env = append(os.Environ(), "HOME="+home, "DOCKER_HOST=unix://"+filepath.Join(home, "no-docker.sock"))
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	runErr := cmd.Run()
	if strings.Contains(out.String(), "gpu backend") {
		return nil // the configuration loaded and the checks ran
	}
	return fmt.Errorf("idlegpu-agent doctor refused the configuration (%v):\n%s%s", runErr, out.String(), errOut.String())
}
