//go:build cgo && linux

package audit

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	settlementaudit "github.com/idlegpu/idlegpu/x/settlement/audit"
)

// fakeCUDA builds testdata/fakecuda.c into a shared library and loads it
// through the production loader.
func fakeCUDA(t *testing.T) *CUDA {
	t.Helper()
	cc, err := exec.LookPath(os.Getenv("CC"))
	if err != nil {
		cc, err = exec.LookPath("cc")
	}
	require.NoError(t, err, "a cgo build has a C compiler")
	lib := filepath.Join(t.TempDir(), "libcuda.so.1")
	out, err := exec.Command(cc, "-shared", "-fPIC", "-O2", "-o", lib, "testdata/fakecuda.c").CombinedOutput()
	require.NoError(t, err, string(out))
	d, err := LoadCUDA(lib)
	require.NoError(t, err)
	return d
}

func seed(b byte) []byte {
	s := make([]byte, settlementaudit.SeedSize)
	for i := range s {
		s[i] = b + byte(i)
	}
	return s
}

func TestCUDAMatchesReference(t *testing.T) {
	d := fakeCUDA(t)
	uuids, err := d.UUIDs()
	require.NoError(t, err)
	// CUDA's 16 UUID bytes, written as NVML names the GPU.
	require.Equal(t, []string{"GPU-10111213-1415-1617-1819-1a1b1c1d1e1f", "GPU-20212223-2425-2627-2829-2a2b2c2d2e2f"}, uuids)

	g := GPU{Driver: d}
	for _, tc := range []struct {
		seed  byte
		units uint64
	}{{1, 1}, {7, 2}, {42, 5}, {200, 70}} { // 70 crosses a sync point
		want, err := settlementaudit.MatMulV1{}.Run(context.Background(), seed(tc.seed), tc.units)
		require.NoError(t, err)
		got, err := g.Run(context.Background(), uuids[1], settlementaudit.MatMulV1Name, seed(tc.seed), tc.units)
		require.NoError(t, err)
		require.Equal(t, want, got, "seed %d, %d units", tc.seed, tc.units)
	}
}

func TestCUDAErrors(t *testing.T) {
	d := fakeCUDA(t)
	g := GPU{Driver: d}
	ctx := context.Background()

	_, err := g.Run(ctx, "GPU-00000000-0000-0000-0000-000000000000", settlementaudit.MatMulV1Name, seed(1), 1)
	require.ErrorIs(t, err, ErrNoDevice)
	_, err = g.Run(ctx, "GPU-10111213-1415-1617-1819-1a1b1c1d1e1f", "idlegpu/other/v1", seed(1), 1)
	require.ErrorIs(t, err, ErrUnknownWorkload)

	// A failed launch is reported with the driver's words, and the session
	// is released: the next audit runs.
	t.Setenv("FAKECUDA_FAIL_LAUNCH", "3")
	_, err = g.Run(ctx, "GPU-10111213-1415-1617-1819-1a1b1c1d1e1f", settlementaudit.MatMulV1Name, seed(1), 4)
	require.ErrorContains(t, err, "round 3: cuLaunchKernel: CUDA error 719: unspecified launch failure")
	os.Unsetenv("FAKECUDA_FAIL_LAUNCH")
	want, _ := settlementaudit.MatMulV1{}.Run(ctx, seed(1), 2)
	got, err := g.Run(ctx, "GPU-10111213-1415-1617-1819-1a1b1c1d1e1f", settlementaudit.MatMulV1Name, seed(1), 2)
	require.NoError(t, err)
	require.Equal(t, want, got)

	// A cancelled audit stops at the next sync point.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	_, err = g.Run(cctx, "GPU-10111213-1415-1617-1819-1a1b1c1d1e1f", settlementaudit.MatMulV1Name, seed(1), 1000)
	require.ErrorIs(t, err, context.Canceled)
}

func TestLoadCUDAWithoutDriver(t *testing.T) {
	_, err := LoadCUDA(filepath.Join(t.TempDir(), "libcuda.so.1"))
	require.ErrorIs(t, err, ErrUnavailable)
}
