package hostcheck_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/agent/gpu"
	"github.com/idlegpu/idlegpu/agent/hostcheck"
)

// brokenGPUs lists GPUs but cannot read them (a driver gone bad).
type brokenGPUs struct{ gpu.Backend }

func (b brokenGPUs) Read(context.Context, string) (gpu.Reading, error) {
	return gpu.Reading{}, errors.New("nvml: GPU is lost")
}

func TestChecker(t *testing.T) {
	sim, err := gpu.NewSim(gpu.SimConfig{Count: 2, Seed: 1})
	require.NoError(t, err)
	defer sim.Close()
	free := map[string]uint64{"/state": 5 << 30, "/work": 2 << 30}
	freeOf := func(dir string) (uint64, error) { return free[dir], nil }
	base := hostcheck.Checker{Runner: "docker", Ping: func(context.Context) error { return nil }, GPUs: sim,
		Dirs: []string{"/state", "/work"}, MinFree: hostcheck.MinFreeBytes, Free: freeOf}
	ctx := context.Background()

	rs := base.Run(ctx)
	require.Equal(t, []string{"runner: docker daemon answers", "gpu: sim: 2 GPUs read",
		"disk: /state 5120 MiB free, /work 2048 MiB free"}, strings(rs))
	require.Empty(t, hostcheck.Failing(rs))
	require.NoError(t, hostcheck.Fatal(rs))

	noDocker := base
	noDocker.Ping = func(context.Context) error { return errors.New("Cannot connect to the Docker daemon") }
	rs = noDocker.Run(ctx)
	require.Equal(t, "runner: docker daemon not answering: Cannot connect to the Docker daemon", hostcheck.Failing(rs)[0].String())
	require.NoError(t, hostcheck.Fatal(rs), "the runner is not fatal: the agent starts with offers withdrawn")

	process := base
	process.Runner, process.Ping = "process", nil
	require.Equal(t, "runner: process: no daemon to ask", process.Run(ctx)[0].String())

	full := base
	free["/work"] = 512 << 20
	rs = full.Run(ctx)
	require.Equal(t, []string{"disk: /work: 512 MiB free, below 1024 MiB"}, strings(hostcheck.Failing(rs)))
	require.NoError(t, hostcheck.Fatal(rs), "a full disk is not fatal")
	free["/work"] = 2 << 30

	lost := base
	lost.GPUs = brokenGPUs{sim}
	rs = lost.Run(ctx)
	failing := hostcheck.Failing(rs)
	require.Len(t, failing, 1)
	require.Equal(t, hostcheck.PartGPU, failing[0].Part)
	require.True(t, hostcheck.IsFatal(failing[0]))
	require.EqualError(t, hostcheck.Fatal(rs), "gpu: sim: read "+mustFirst(t, sim)+": nvml: GPU is lost")
}

func strings(rs []hostcheck.Result) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.String())
	}
	return out
}

func mustFirst(t *testing.T, b gpu.Backend) string {
	devs, err := b.Devices(context.Background())
	require.NoError(t, err)
	return devs[0].UUID
}

func TestFreeBytesOfAMissingDir(t *testing.T) {
	dir := t.TempDir()
	n, err := hostcheck.FreeBytes(dir + "/not/made/yet")
	require.NoError(t, err)
	require.Positive(t, n)
	require.Equal(t, dir, hostcheck.ExistingParent(dir+"/not/made/yet"))
}
