package runner

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/docker/docker/api/types/mount"
	"github.com/stretchr/testify/require"
)

// Every limit is set or given up by name; a spec cannot lift one.
func TestDockerLimitsMustBeSetOrGivenUp(t *testing.T) {
	full := DockerOptions{CPUCoresPerGPU: 1, MemoryBytesPerGPU: 1, DiskBytesPerGPU: 1, MaxImageBytes: 1}
	require.NoError(t, full.CheckLimits())
	require.NoError(t, DockerOptions{Unlimited: LimitNames, PidsLimit: -1}.CheckLimits())
	require.EqualError(t, DockerOptions{}.CheckLimits(),
		"resource without a limit: cpu, memory, disk, images (set them, or name them in unlimited to run jobs without)")
	noPids := full
	noPids.PidsLimit = -1
	require.ErrorIs(t, noPids.CheckLimits(), ErrNoLimit)
	require.EqualError(t, DockerOptions{Unlimited: []string{"gpu"}}.CheckLimits(),
		`unknown limit "gpu" in unlimited (known: cpu, memory, disk, pids, images)`)

	require.EqualError(t, full.checkSpecLimits(Spec{LeaseID: 9, CPUs: 1, MemoryBytes: 1}),
		"resource without a limit: lease 9 would run without a disk limit")
	require.NoError(t, DockerOptions{Unlimited: []string{LimitDisk}}.checkSpecLimits(Spec{CPUs: 1, MemoryBytes: 1}))
}

// A machine is divided among its GPUs with the host's share kept out.
func TestShareMachine(t *testing.T) {
	s, err := ShareMachine(Machine{Cores: 33, MemoryBytes: 512 << 30, DiskAvailBytes: 4 << 40}, 4)
	require.NoError(t, err)
	require.Equal(t, Share{CPUCoresPerGPU: 8, MemoryBytesPerGPU: (512<<30 - 512<<30/10) / 4 >> 20 << 20,
		DiskBytesPerGPU: 512 << 30, MaxImageBytes: 1 << 40}, s)
	// A small machine: the host keeps 4 GiB of 16, one core of two.
	s, err = ShareMachine(Machine{Cores: 2, MemoryBytes: 16 << 30, DiskAvailBytes: 10 << 30}, 1)
	require.NoError(t, err)
	require.Equal(t, Share{CPUCoresPerGPU: 1, MemoryBytesPerGPU: 12 << 30, DiskBytesPerGPU: 5 << 30, MaxImageBytes: 2 << 30}, s)
	require.Equal(t, int64(4<<30), HostMemoryReserve(16<<30))
	require.Equal(t, int64(2<<30), HostMemoryReserve(4<<30), "at most half")

	_, err = ShareMachine(Machine{Cores: 8, MemoryBytes: 64 << 30, DiskAvailBytes: 1 << 30}, 2)
	require.ErrorContains(t, err, "jobs get half of it, less than 1 GiB per GPU for 2 GPUs' jobs (free at least 4 GiB)")
	_, err = ShareMachine(Machine{Cores: 8, MemoryBytes: 64 << 30, DiskAvailBytes: 1 << 40}, 0)
	require.Error(t, err)
	m, err := ReadMachine(t.TempDir())
	require.NoError(t, err)
	require.Positive(t, m.Cores)
	require.Positive(t, m.MemoryBytes)
	require.Positive(t, m.DiskAvailBytes)
}

// The container of an unprivileged job: nobody, a read-only root, a /tmp
// in memory, its scratch and the spec's mounts; with AllowRoot the image's
// user and a writable root.
func TestDockerSandboxConfig(t *testing.T) {
	d := NewDocker(panicAPI{}, DockerOptions{LogDir: "/work"})
	spec := Spec{LeaseID: 7, Image: "img", GPUs: []string{"GPU-a"}, MemoryBytes: 8 << 30, Env: map[string]string{"HOME": "/data"},
		Mounts: []Mount{{Source: "/in", Target: "/inputs", ReadOnly: true}, {Source: "/out", Target: "/outputs"}}}
	cfg, hc := d.containerConfig(spec)
	require.Equal(t, "65534:65534", cfg.User)
	require.True(t, hc.ReadonlyRootfs)
	require.Contains(t, cfg.Env, "HOME=/data", "the manifest's HOME wins")
	require.NotContains(t, cfg.Env, "HOME=/scratch")
	require.Contains(t, cfg.Env, "TMPDIR=/tmp")
	require.Equal(t, []mount.Mount{
		{Type: mount.TypeTmpfs, Target: "/tmp", TmpfsOptions: &mount.TmpfsOptions{SizeBytes: 1 << 30, Mode: 0o1777}},
		{Type: mount.TypeBind, Source: "/work/lease-7/scratch", Target: "/scratch"},
		{Type: mount.TypeBind, Source: "/in", Target: "/inputs", ReadOnly: true},
		{Type: mount.TypeBind, Source: "/out", Target: "/outputs"},
	}, hc.Mounts)
	require.Equal(t, []string{"/work/lease-7/scratch", "/out"}, d.writableDirs(spec))

	spec.AllowRoot = true
	cfg, hc = d.containerConfig(spec)
	require.Empty(t, cfg.User, "the image's own user")
	require.False(t, hc.ReadonlyRootfs)
	require.Equal(t, []string{"ALL"}, []string(hc.CapDrop), "still no capabilities")
	require.Equal(t, &diskWatch{dirs: []string{"/work/lease-7/scratch", "/out"}, rootfs: true, limit: 5, interval: DefaultDiskCheckInterval},
		d.diskWatch(Spec{LeaseID: 7, AllowRoot: true, DiskBytes: 5, Mounts: spec.Mounts}))
	require.Nil(t, d.diskWatch(Spec{LeaseID: 7}), "no limit, no watchdog")
}

func TestDockerRefusesBadMounts(t *testing.T) {
	for name, m := range map[string]Mount{
		"relative source":     {Source: "in", Target: "/in"},
		"unclean source":      {Source: "/a/../etc", Target: "/in"},
		"relative target":     {Source: "/in", Target: "in"},
		"root target":         {Source: "/in", Target: "/"},
		"over the scratch":    {Source: "/in", Target: "/scratch"},
		"under /tmp":          {Source: "/in", Target: "/tmp/x"},
		"over /proc":          {Source: "/in", Target: "/proc"},
		"under /dev":          {Source: "/in", Target: "/dev/nvidia0"},
		"a colon in a target": {Source: "/in", Target: "/a:b"},
		"an unclean target":   {Source: "/in", Target: "/a/"},
	} {
		err := validateMounts(Spec{LeaseID: 1, Mounts: []Mount{m}})
		require.ErrorIs(t, err, ErrInvalidSpec, name)
	}
	err := validateMounts(Spec{Mounts: []Mount{{Source: "/a", Target: "/x"}, {Source: "/b", Target: "/x"}}})
	require.ErrorContains(t, err, "twice")
	require.NoError(t, validateMounts(Spec{Mounts: []Mount{{Source: "/a", Target: "/tmpdata"}, {Source: "/b", Target: "/scratchpad"}}}))
}

// The scratch and writable mounts become the job user's; a job that may
// run as root gets sticky world-writable ones. Cleanup removes the scratch.
func TestDockerPreparesAndRemovesTheScratch(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("handing directories to another uid needs root")
	}
	fake := newFakeDocker()
	d := NewDocker(fake, limited(DockerOptions{LogDir: t.TempDir()}))
	out := t.TempDir()
	spec := Spec{LeaseID: 3, Image: "img", Command: []string{"x"}, Mounts: []Mount{{Source: out, Target: "/out"}}}
	j, err := d.Start(context.Background(), spec)
	require.NoError(t, err)
	for _, dir := range []string{d.scratchDir(3), out} {
		st, err := os.Stat(dir)
		require.NoError(t, err)
		require.Equal(t, os.ModeDir|0o700, st.Mode(), dir)
		require.Equal(t, uint32(JobUID), st.Sys().(*syscall.Stat_t).Uid, dir)
	}
	require.NoError(t, os.WriteFile(filepath.Join(d.scratchDir(3), "f"), []byte("x"), 0o600))
	fake.exit(ContainerName(3), 0)
	waitDone(t, j, 10*time.Second)
	_, err = os.Stat(d.scratchDir(3))
	require.True(t, os.IsNotExist(err))
	_, err = os.Stat(out)
	require.NoError(t, err, "a renter's output is not the runner's to remove")

	spec.AllowRoot = true
	require.NoError(t, d.prepareSandbox(spec))
	st, err := os.Stat(d.scratchDir(3))
	require.NoError(t, err)
	require.Equal(t, os.ModeDir|os.ModeSticky|0o777, st.Mode())
}
