package cmd

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/agent/config"
	"github.com/idlegpu/idlegpu/agent/gpu"
	"github.com/idlegpu/idlegpu/agent/runner"
)

// init divides the machine among the GPUs it is told of (or simulates)
// and writes the limits; an older file's zeros stop the docker runner
// with what this machine would give instead.
func TestInitWritesMachineLimits(t *testing.T) {
	home := t.TempDir()
	out, err := initHome(t, "init", "--home", home, "--keyring-backend", "test", "--gpu-backend", "sim", "--gpus", "2")
	require.NoError(t, err)
	c, err := config.Load(filepath.Join(home, "agent.toml"))
	require.NoError(t, err)
	share, err := machineShare(c.Runner.WorkDir, 2)
	require.NoError(t, err)
	require.Equal(t, share.CPUCoresPerGPU, c.Runner.CPUCoresPerGPU)
	require.Equal(t, uint64(share.MemoryBytesPerGPU>>20), c.Runner.MemoryMiBPerGPU)
	// The free space moves while others write: within a GiB.
	require.InDelta(t, share.DiskBytesPerGPU>>30, c.Runner.DiskGiBPerGPU, 1)
	require.Positive(t, c.Runner.DiskGiBPerGPU)
	require.InDelta(t, share.MaxImageBytes, c.Runner.MaxImageBytes, 1<<30)
	require.Empty(t, c.Runner.Unlimited)
	require.Contains(t, out, "job limits per GPU for 2 GPUs (--gpus): cpu_cores_per_gpu ")

	opts := runner.DefaultDockerOptions(c.Runner.WorkDir)
	opts.CPUCoresPerGPU, opts.MemoryBytesPerGPU = c.Runner.CPUCoresPerGPU, int64(c.Runner.MemoryMiBPerGPU)<<20
	opts.DiskBytesPerGPU, opts.MaxImageBytes = int64(c.Runner.DiskGiBPerGPU)<<30, c.Runner.MaxImageBytes
	require.NoError(t, opts.CheckLimits(), "what init writes starts the docker runner")

	// Without --gpus the simulated GPUs count.
	_, err = initHome(t, "init", "--home", home, "--force", "--keyring-backend", "test", "--gpu-backend", "sim")
	require.NoError(t, err)
	c, err = config.Load(filepath.Join(home, "agent.toml"))
	require.NoError(t, err)
	share, err = machineShare(c.Runner.WorkDir, c.GPU.SimCount)
	require.NoError(t, err)
	require.Equal(t, uint64(share.MemoryBytesPerGPU>>20), c.Runner.MemoryMiBPerGPU)

	old := c.Runner
	old.CPUCoresPerGPU, old.MemoryMiBPerGPU = 0, 0
	sims, err := gpu.NewSim(gpu.SimConfig{Model: c.GPU.SimModel, Count: 4, Seed: 1})
	require.NoError(t, err)
	_, err = openRunner(old, config.Ingress{}, sims)
	require.ErrorIs(t, err, runner.ErrNoLimit)
	require.ErrorContains(t, err, "resource without a limit: cpu, memory (set them, or name them in unlimited to run jobs without)")
	require.ErrorContains(t, err, "for its 4 GPUs this machine gives cpu_cores_per_gpu = ")
}

// initHome runs the agent command with no stdin and returns its stdout.
func initHome(t *testing.T, args ...string) (string, error) {
	t.Helper()
	root := NewRootCmd()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetIn(strings.NewReader(""))
	root.SetArgs(args)
	err := root.Execute()
	return out.String(), err
}
