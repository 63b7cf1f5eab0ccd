//go:build cgo && linux

package audit

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	settlementaudit "github.com/idlegpu/idlegpu/x/settlement/audit"
)

// fakeCUDA builds testdata/fakecuda.c, with the kernels written in C,
// into a shared library and loads it through the production loader.
func fakeCUDA(t *testing.T) *CUDA {
	t.Helper()
	return loadFake(t)
}

// fakeCUDAWithIR is fakeCUDA running the kernels' own LLVM IR
// (kernels/memwalk.ll) compiled for the host by llc: the PTX's source,
// checked without a GPU. It skips where llc is not LLVM 14's (the IR uses
// typed pointers, as the PTX build script's pinned llc does).
func fakeCUDAWithIR(t *testing.T) *CUDA {
	t.Helper()
	llc := os.Getenv("LLC")
	for _, name := range []string{"llc-14", "llc"} {
		if llc == "" {
			llc, _ = exec.LookPath(name)
		}
	}
	if llc == "" {
		t.Skip("llc not found: the kernels' IR is checked where LLVM 14 is installed")
	}
	src, err := os.ReadFile("kernels/memwalk.ll")
	require.NoError(t, err)
	// Host code: no NVPTX target, one address space, the special
	// registers as functions of the fake.
	host := regexp.MustCompile(`(?m)^target .*$`).ReplaceAllString(string(src), "")
	host = regexp.MustCompile(`@llvm\.nvvm\.read\.ptx\.sreg\.(\w+)\.x\b`).ReplaceAllString(host, "@fake_${1}_x")
	host = strings.NewReplacer(" addrspace(1)", "", "addrspacecast", "bitcast").Replace(host)
	dir := t.TempDir()
	ll, obj := filepath.Join(dir, "memwalk_host.ll"), filepath.Join(dir, "memwalk_host.o")
	require.NoError(t, os.WriteFile(ll, []byte(host), 0o600))
	out, err := exec.Command(llc, "-mtriple=x86_64-unknown-linux-gnu", "-O2", "-relocation-model=pic",
		"-filetype=obj", ll, "-o", obj).CombinedOutput()
	if err != nil {
		ver, _ := exec.Command(llc, "--version").Output()
		if !strings.Contains(string(ver), "LLVM version 14.") {
			t.Skipf("%s is not LLVM 14 and cannot compile the kernels' IR: %s", llc, out)
		}
		require.NoError(t, err, string(out))
	}
	return loadFake(t, "-DFAKECUDA_IR", obj)
}

func loadFake(t *testing.T, extra ...string) *CUDA {
	t.Helper()
	if runtime.GOARCH != "amd64" && len(extra) > 0 {
		t.Skip("the kernels' IR is compiled for x86-64 hosts")
	}
	cc, err := exec.LookPath(os.Getenv("CC"))
	if err != nil {
		cc, err = exec.LookPath("cc")
	}
	require.NoError(t, err, "a cgo build has a C compiler")
	lib := filepath.Join(t.TempDir(), "libcuda.so.1")
	args := append([]string{"-shared", "-fPIC", "-O2", "-o", lib, "testdata/fakecuda.c"}, extra...)
	out, err := exec.Command(cc, args...).CombinedOutput()
	require.NoError(t, err, string(out))
	d, err := LoadCUDA(lib)
	require.NoError(t, err)
	return d
}

const (
	fakeGPU0 = "GPU-10111213-1415-1617-1819-1a1b1c1d1e1f"
	fakeGPU1 = "GPU-20212223-2425-2627-2829-2a2b2c2d2e2f"
)

func TestCUDAMatchesReference(t *testing.T) {
	d := fakeCUDA(t)
	uuids, err := d.UUIDs()
	require.NoError(t, err)
	// CUDA's 16 UUID bytes, written as NVML names the GPU.
	require.Equal(t, []string{fakeGPU0, fakeGPU1}, uuids)
	checkMatchesReference(t, d, uuids[1])
}

// The kernels' IR itself computes the reference's transcript.
func TestCUDAKernelIRMatchesReference(t *testing.T) {
	checkMatchesReference(t, fakeCUDAWithIR(t), fakeGPU0)
}

func checkMatchesReference(t *testing.T, d Driver, uuid string) {
	for _, tc := range []struct {
		name  string
		seed  byte
		shape settlementaudit.Shape
		gpu   GPU
	}{
		// Defaults: one build launch, one walk launch.
		{"one launch each", 1, settlementaudit.Shape{TableItems: 16_384, Lanes: 4, Segments: 2, SegmentSteps: 3}, GPU{}},
		// Items not a multiple of the block or the chunk; several batches
		// of lanes, several launches per batch, a short last launch.
		{"chunks and batches", 7, settlementaudit.Shape{TableItems: 40_000, Lanes: 64, Segments: 8, SegmentSteps: 50},
			GPU{buildChunk: 7_000, batchLanes: 16, launchReads: 16 * 50 * 3}},
		{"one segment per launch", 42, settlementaudit.Shape{TableItems: 23_457, Lanes: 32, Segments: 4, SegmentSteps: 17},
			GPU{buildChunk: 1 << 14, batchLanes: 32, launchReads: 1}},
		{"batch of one lane", 200, settlementaudit.Shape{TableItems: 16_385, Lanes: 8, Segments: 2, SegmentSteps: 33},
			GPU{batchLanes: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, err := settlementaudit.Run(context.Background(), seed(tc.seed), tc.shape)
			require.NoError(t, err)
			g := tc.gpu
			g.Driver = d
			var timings []Timings
			g.Observe = func(tm Timings) { timings = append(timings, tm) }
			got, err := g.Run(context.Background(), uuid, seed(tc.seed), tc.shape)
			require.NoError(t, err)
			require.Equal(t, want, got)
			require.Len(t, timings, 1)
		})
	}
}

// cancelOnLaunch cancels an audit when it first launches kernel: the
// runner must stop at its next check, after at most one more launch.
type cancelOnLaunch struct {
	Driver
	kernel   string
	cancel   context.CancelFunc
	launches *int
}

func (d cancelOnLaunch) Open(uuid, ptx string, kernels ...string) (Session, error) {
	s, err := d.Driver.Open(uuid, ptx, kernels...)
	if err != nil {
		return nil, err
	}
	return cancelSession{Session: s, d: d}, nil
}

type cancelSession struct {
	Session
	d cancelOnLaunch
}

func (s cancelSession) Launch(kernel string, grid, block uint32, args ...Arg) error {
	*s.d.launches++
	if kernel == s.d.kernel {
		s.d.cancel()
	}
	return s.Session.Launch(kernel, grid, block, args...)
}

func TestCUDACancelled(t *testing.T) {
	d := fakeCUDA(t)
	shape := settlementaudit.Shape{TableItems: 40_000, Lanes: 64, Segments: 8, SegmentSteps: 10}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := GPU{Driver: d}.Run(ctx, fakeGPU0, seed(1), shape)
	require.ErrorIs(t, err, context.Canceled)

	for _, kernel := range []string{buildKernel, walkKernel} {
		ctx, cancel := context.WithCancel(context.Background())
		var launches int
		g := GPU{Driver: cancelOnLaunch{Driver: d, kernel: kernel, cancel: cancel, launches: &launches},
			buildChunk: 5_000, batchLanes: 16, launchReads: 1}
		_, err := g.Run(ctx, fakeGPU0, seed(1), shape)
		require.ErrorIs(t, err, context.Canceled, kernel)
		if kernel == buildKernel {
			require.Equal(t, 1, launches, "the build stops after its first chunk")
		} else {
			require.Equal(t, 8+1, launches, "eight build chunks, then one walk launch")
		}
	}
}

func TestCUDAErrors(t *testing.T) {
	d := fakeCUDA(t)
	g := GPU{Driver: d}
	ctx := context.Background()
	shape := settlementaudit.Shape{TableItems: 16_384, Lanes: 8, Segments: 2, SegmentSteps: 5}

	_, err := g.Run(ctx, "GPU-00000000-0000-0000-0000-000000000000", seed(1), shape)
	require.ErrorIs(t, err, ErrNoDevice)
	_, err = g.Run(ctx, fakeGPU0, seed(1)[:16], shape)
	require.ErrorContains(t, err, "seed must be 32 bytes")
	bad := shape
	bad.TableItems = 100
	_, err = g.Run(ctx, fakeGPU0, seed(1), bad)
	require.ErrorContains(t, err, "below the least")

	// A board without room for the table says how much it lacks.
	t.Setenv("FAKECUDA_FREE_BYTES", "1000000")
	_, err = g.Run(ctx, fakeGPU0, seed(1), shape)
	require.ErrorIs(t, err, ErrNoMemory)
	require.ErrorContains(t, err, "1000000 of 2147483648 free")
	os.Unsetenv("FAKECUDA_FREE_BYTES")

	// A failed launch is reported with the driver's words and where the
	// audit was, and the session is released: the next audit runs.
	small := GPU{Driver: d, buildChunk: 10_000, launchReads: 1}
	t.Setenv("FAKECUDA_FAIL_LAUNCH", "2")
	_, err = small.Run(ctx, fakeGPU0, seed(1), shape)
	require.ErrorContains(t, err, "building items [10000, 16384): cuLaunchKernel memwalk_build: CUDA error 719: unspecified launch failure")
	t.Setenv("FAKECUDA_FAIL_LAUNCH", "4")
	_, err = small.Run(ctx, fakeGPU0, seed(1), shape)
	require.ErrorContains(t, err, "walking lanes [0, 8), segments [1, 2): cuLaunchKernel memwalk_walk: CUDA error 719: unspecified launch failure")
	os.Unsetenv("FAKECUDA_FAIL_LAUNCH")
	want, err := settlementaudit.Run(ctx, seed(1), shape)
	require.NoError(t, err)
	got, err := small.Run(ctx, fakeGPU0, seed(1), shape)
	require.NoError(t, err)
	require.Equal(t, want, got)
}

func TestLoadCUDAWithoutDriver(t *testing.T) {
	_, err := LoadCUDA(filepath.Join(t.TempDir(), "libcuda.so.1"))
	require.ErrorIs(t, err, ErrUnavailable)
}

// TestSessionsPerDevice: two devices' sessions are open at once (an 8-GPU
// machine answers its audits together), while a second session on the same
// device waits for the first to close.
func TestSessionsPerDevice(t *testing.T) {
	d := fakeCUDA(t)
	uuids, err := d.UUIDs()
	require.NoError(t, err)
	require.Len(t, uuids, 2)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	a, err := d.Open(uuids[0], memwalkPTX, buildKernel, walkKernel)
	require.NoError(t, err)
	other := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		s, err := d.Open(uuids[1], memwalkPTX, buildKernel, walkKernel)
		if err == nil {
			err = s.Close()
		}
		other <- err
	}()
	select {
	case err := <-other:
		require.NoError(t, err, "another device opens while the first is busy")
	case <-time.After(10 * time.Second):
		t.Fatal("a session on another device waited for the first")
	}
	same := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		s, err := d.Open(uuids[0], memwalkPTX, buildKernel, walkKernel)
		if err == nil {
			err = s.Close()
		}
		same <- err
	}()
	select {
	case <-same:
		t.Fatal("a second session opened on a busy device")
	case <-time.After(200 * time.Millisecond):
	}
	require.NoError(t, a.Close())
	require.NoError(t, <-same)
}
