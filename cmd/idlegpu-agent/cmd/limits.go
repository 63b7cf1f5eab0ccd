package cmd

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/idlegpu/idlegpu/agent/config"
	"github.com/idlegpu/idlegpu/agent/gpu"
	"github.com/idlegpu/idlegpu/agent/runner"
)

// machineShare is what this machine gives each of gpus GPUs' jobs, read
// where the runner's work dir lives (its nearest existing ancestor before
// init creates it).
func machineShare(workDir string, gpus int) (runner.Share, error) {
	dir := workDir
	for {
		if _, err := os.Stat(dir); err == nil || filepath.Dir(dir) == dir {
			break
		}
		dir = filepath.Dir(dir)
	}
	m, err := runner.ReadMachine(dir)
	if err != nil {
		return runner.Share{}, err
	}
	return runner.ShareMachine(m, gpus)
}

// initGPUCount is the number of GPUs init divides the machine by: --gpus,
// else the simulated count, else what the GPU backend finds (1 when it
// finds none: the provider is told to say how many).
func initGPUCount(c config.GPU, flag int) (int, string) {
	switch {
	case flag > 0:
		return flag, "--gpus"
	case c.Backend == "sim":
		return c.SimCount, "simulated"
	}
	if b, err := openGPUs(c, slog.New(slog.NewTextHandler(io.Discard, nil))); err == nil {
		defer b.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if devs, err := b.Devices(ctx); err == nil && len(devs) > 0 {
			return len(devs), "found by " + b.Name()
		}
	}
	return 1, "no GPU found here: give the count with --gpus"
}

// applyShare writes a share into the runner's per-GPU settings.
func applyShare(r *config.Runner, s runner.Share) {
	r.CPUCoresPerGPU = s.CPUCoresPerGPU
	r.MemoryMiBPerGPU = uint64(s.MemoryBytesPerGPU >> 20)
	r.DiskGiBPerGPU = uint64(s.DiskBytesPerGPU >> 30)
	r.MaxImageBytes = s.MaxImageBytes
}

// printShare says what init derived and from what.
func printShare(out io.Writer, r config.Runner, gpus int, counted string) {
	fmt.Fprintf(out, "job limits per GPU for %d GPUs (%s): cpu_cores_per_gpu %d, memory_mib_per_gpu %d, disk_gib_per_gpu %d; max_image_bytes %d\n",
		gpus, counted, r.CPUCoresPerGPU, r.MemoryMiBPerGPU, r.DiskGiBPerGPU, r.MaxImageBytes)
}

// limitsError explains a docker runner refused for a limit left at 0 (an
// older init wrote zeros) and what this machine would give instead.
func limitsError(err error, c config.Runner, gpus gpu.Backend) error {
	n := 0
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if devs, derr := gpus.Devices(ctx); derr == nil {
		n = len(devs)
	}
	hint := "run `idlegpu-agent init --force` to write limits derived from this machine"
	if s, serr := machineShare(c.WorkDir, max(n, 1)); serr == nil {
		var r config.Runner
		applyShare(&r, s)
		hint = fmt.Sprintf("for its %d GPUs this machine gives cpu_cores_per_gpu = %d, memory_mib_per_gpu = %d, disk_gib_per_gpu = %d, max_image_bytes = %d",
			max(n, 1), r.CPUCoresPerGPU, r.MemoryMiBPerGPU, r.DiskGiBPerGPU, r.MaxImageBytes)
	}
	return fmt.Errorf("docker runner: %w: a 0 in runner.cpu_cores_per_gpu, memory_mib_per_gpu, disk_gib_per_gpu or max_image_bytes is no limit only when runner.unlimited names it; %s", err, hint)
}
