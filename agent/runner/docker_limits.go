package runner

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"syscall"
)

// The resources a docker job is always bounded in, unless the provider
// names them in DockerOptions.Unlimited (config runner.unlimited).
const (
	LimitCPU    = "cpu"
	LimitMemory = "memory"
	LimitDisk   = "disk"
	LimitPids   = "pids"
	LimitImages = "images"
)

// LimitNames are the names DockerOptions.Unlimited takes.
var LimitNames = []string{LimitCPU, LimitMemory, LimitDisk, LimitPids, LimitImages}

// ErrNoLimit is returned when a resource would go unbounded without the
// provider having opted out of its limit by name.
var ErrNoLimit = errors.New("resource without a limit")

// unlimited says the provider opted out of the named limit.
func (o DockerOptions) unlimited(name string) bool { return slices.Contains(o.Unlimited, name) }

// CheckLimits fails unless every resource has a limit or is named in
// Unlimited, and every name there is known. The runner refuses to start
// jobs otherwise: a zero left by an old configuration must not mean "the
// whole machine".
func (o DockerOptions) CheckLimits() error {
	for _, n := range o.Unlimited {
		if !slices.Contains(LimitNames, n) {
			return fmt.Errorf("unknown limit %q in unlimited (known: %s)", n, strings.Join(LimitNames, ", "))
		}
	}
	var missing []string
	check := func(name string, unset bool) {
		if unset && !o.unlimited(name) {
			missing = append(missing, name)
		}
	}
	check(LimitCPU, o.CPUCoresPerGPU == 0)
	check(LimitMemory, o.MemoryBytesPerGPU <= 0)
	check(LimitDisk, o.DiskBytesPerGPU <= 0)
	check(LimitPids, o.PidsLimit < 0)
	check(LimitImages, o.MaxImageBytes <= 0)
	if len(missing) > 0 {
		return fmt.Errorf("%w: %s (set them, or name them in unlimited to run jobs without)", ErrNoLimit, strings.Join(missing, ", "))
	}
	return nil
}

// checkSpecLimits is CheckLimits for one job once its spec's limits are
// filled in: a spec may not lift a limit the provider did not give up.
func (o DockerOptions) checkSpecLimits(spec Spec) error {
	var missing []string
	check := func(name string, unset bool) {
		if unset && !o.unlimited(name) {
			missing = append(missing, name)
		}
	}
	check(LimitCPU, spec.CPUs == 0)
	check(LimitMemory, spec.MemoryBytes == 0)
	check(LimitDisk, spec.DiskBytes == 0)
	check(LimitPids, o.PidsLimit < 0)
	if len(missing) > 0 {
		return fmt.Errorf("%w: lease %d would run without a %s limit", ErrNoLimit, spec.LeaseID, strings.Join(missing, ", "))
	}
	return nil
}

// HostMemoryReserve is the memory a machine keeps out of its jobs' limits:
// a tenth of it, at least 4 GiB, at most half. The kernel, its page cache
// (image pulls, the jobs' inputs), dockerd and containerd, the agent and
// the NVIDIA driver's pinned host buffers all live outside the jobs'
// cgroups, and a host that runs out of memory kills jobs and agent alike.
func HostMemoryReserve(total int64) int64 {
	return min(max(4<<30, total/10), total/2)
}

// Machine is what a machine has for jobs.
type Machine struct {
	// Cores are the online CPUs; MemoryBytes the physical memory.
	Cores       int
	MemoryBytes int64
	// DiskAvailBytes is what unprivileged users may still write on the
	// filesystem of the runner's work dir.
	DiskAvailBytes int64
}

// ReadMachine reads this machine's cores, memory and the space available
// on workDir's filesystem.
func ReadMachine(workDir string) (Machine, error) {
	var si syscall.Sysinfo_t
	if err := syscall.Sysinfo(&si); err != nil {
		return Machine{}, fmt.Errorf("sysinfo: %w", err)
	}
	var fs syscall.Statfs_t
	if err := syscall.Statfs(workDir, &fs); err != nil {
		return Machine{}, fmt.Errorf("statfs %s: %w", workDir, err)
	}
	return Machine{Cores: runtime.NumCPU(), MemoryBytes: int64(si.Totalram) * int64(si.Unit),
		DiskAvailBytes: int64(fs.Bavail) * fs.Bsize}, nil
}

// Share is a machine's resources divided among its GPUs' jobs.
type Share struct {
	CPUCoresPerGPU    uint32
	MemoryBytesPerGPU int64
	DiskBytesPerGPU   int64
	MaxImageBytes     int64
}

// ShareMachine divides a machine among gpus GPUs' jobs. The host keeps one
// core (where there is more than one) and HostMemoryReserve; of the work
// dir's available disk the image cache gets a quarter, the jobs half, and
// the last quarter stays for the jobs' log rings, their fetched inputs and
// the host. Disk is in whole GiB, memory in whole MiB (the configuration's
// units).
func ShareMachine(m Machine, gpus int) (Share, error) {
	if gpus < 1 {
		return Share{}, fmt.Errorf("%d GPUs: at least one is needed to share a machine", gpus)
	}
	n := int64(gpus)
	hostCores := min(1, m.Cores-1)
	s := Share{
		CPUCoresPerGPU:    uint32(max(1, int64(m.Cores-hostCores)/n)),
		MemoryBytesPerGPU: (m.MemoryBytes - HostMemoryReserve(m.MemoryBytes)) / n >> 20 << 20,
		DiskBytesPerGPU:   m.DiskAvailBytes / 2 / n >> 30 << 30,
		MaxImageBytes:     m.DiskAvailBytes / 4 >> 30 << 30,
	}
	switch {
	case s.MemoryBytesPerGPU <= 0:
		return Share{}, fmt.Errorf("%d MiB of memory leaves nothing for %d GPUs' jobs after the host's reserve", m.MemoryBytes>>20, gpus)
	case s.DiskBytesPerGPU <= 0:
		return Share{}, fmt.Errorf("%d MiB available on the work dir's filesystem: jobs get half of it, less than 1 GiB per GPU for %d GPUs' jobs (free at least %d GiB)", m.DiskAvailBytes>>20, gpus, 2*n)
	}
	return s, nil
}
