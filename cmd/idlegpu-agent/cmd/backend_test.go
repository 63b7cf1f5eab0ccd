package cmd_test

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/agent/config"
	"github.com/idlegpu/idlegpu/agent/gpu"
)

// skipWithNVML skips a test of a machine without the NVIDIA driver.
func skipWithNVML(t *testing.T) {
	t.Helper()
	if b, err := gpu.NewNVMLDefault(); err == nil {
		b.Close()
		t.Skip("NVML loads on this machine: auto is nvml here")
	}
}

// TestAutoWithoutNVMLIsAnError: "auto" never falls back to simulated GPUs;
// it says what to do instead.
func TestAutoWithoutNVMLIsAnError(t *testing.T) {
	skipWithNVML(t)
	home := t.TempDir()
	_, err := run(t, "", "init", "--home", home, "--keyring-backend", "test", "--runner", "process", "--unsafe-process-runner")
	require.NoError(t, err)
	c, err := config.Load(filepath.Join(home, "agent.toml"))
	require.NoError(t, err)
	require.Equal(t, "auto", c.GPU.Backend, "auto is the default")

	for _, args := range [][]string{{"inventory"}, {"inventory", "--json"}, {"register", "--dry-run"}} {
		out, _, err := runAll(t, "", append(args, "--home", home)...)
		require.ErrorIs(t, err, gpu.ErrUnavailable, args)
		require.ErrorContains(t, err, `gpu.backend "auto" found no usable NVIDIA driver: gpu backend unavailable`, args)
		require.ErrorContains(t, err, `or, for tests and demos only, set gpu.backend = "sim" (init --gpu-backend sim)`, args)
		require.Empty(t, out, args)
	}
}

// TestInventoryNamesTheBackend: the table and --json (on stderr, so stdout
// stays register-gpus's input) say the GPUs are simulated.
func TestInventoryNamesTheBackend(t *testing.T) {
	home := t.TempDir()
	_, err := run(t, "", "init", "--home", home, "--keyring-backend", "test", "--gpu-backend", "sim", "--runner", "process", "--unsafe-process-runner")
	require.NoError(t, err)
	const note = " (SIMULATED GPUs: for tests and demos; register accepts them on development chains only)"
	out, errOut, err := runAll(t, "", "inventory", "--home", home, "--json")
	require.NoError(t, err)
	require.Contains(t, errOut, "backend sim"+note+"\n")
	var body struct{ GPUs []json.RawMessage }
	require.NoError(t, json.Unmarshal([]byte(out), &body))
	require.Len(t, body.GPUs, 4)
	table, err := run(t, "", "inventory", "--home", home)
	require.NoError(t, err)
	require.Contains(t, table, "BACKEND sim"+note+"\n")
}
