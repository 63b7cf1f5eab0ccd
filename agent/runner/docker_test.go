package runner

import (
	"context"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/mount"
	"github.com/docker/docker/client"
	"github.com/stretchr/testify/require"
)

// limited gives test options the limits a runner needs to start jobs
// (small ones, for a busybox job), where they set none.
func limited(o DockerOptions) DockerOptions {
	if o.CPUCoresPerGPU == 0 {
		o.CPUCoresPerGPU = 1
	}
	if o.MemoryBytesPerGPU == 0 {
		o.MemoryBytesPerGPU = 256 << 20
	}
	if o.DiskBytesPerGPU == 0 {
		o.DiskBytesPerGPU = 1 << 30
	}
	if o.MaxImageBytes == 0 {
		o.MaxImageBytes = 1 << 40
	}
	return o
}

// gpuHook records the calls of the GPUMemoryFree hook.
type gpuHook struct {
	mu    sync.Mutex
	calls [][]string
}

func (h *gpuHook) free(_ context.Context, uuids []string) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.calls = append(h.calls, uuids)
	return nil
}

func (h *gpuHook) Calls() [][]string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.calls)
}

// waitDone fails the test unless the job ends within d.
func waitDone(t *testing.T, j Job, d time.Duration) {
	t.Helper()
	select {
	case <-j.Done():
	case <-time.After(d):
		t.Fatalf("job did not end within %v", d)
	}
}

func requireGone(t *testing.T, cli *client.Client, nameOrID string) {
	t.Helper()
	_, err := cli.ContainerInspect(context.Background(), nameOrID)
	require.Truef(t, cerrdefs.IsNotFound(err), "container %s still there (err %v)", nameOrID, err)
}

// TestDockerRunner runs jobs on a real daemon (see dockerDaemon) with a
// busybox image imported from a tarball.
func TestDockerRunner(t *testing.T) {
	cli := dockerDaemon(t)
	img := importBusybox(t, cli)
	ctx := context.Background()
	// Lease ids (so container names) of their own: a shared daemon may be
	// running another copy of these tests.
	base := uint64(rand.Int64N(1_000_000_000)) * 10
	newRunner := func(t *testing.T, hook *gpuHook) *Docker {
		// RequireDigest off: an imported image has no registry digest, so it
		// is run by its id. DeviceRequests off: no NVIDIA runtime here.
		return NewDocker(cli, limited(DockerOptions{LogDir: t.TempDir(), Grace: time.Second, GPUMemoryFree: hook.free}))
	}

	t.Run("exit code, env and logs; removed after exit", func(t *testing.T) {
		hook := &gpuHook{}
		d := newRunner(t, hook)
		j, err := d.Start(ctx, Spec{LeaseID: base + 1, Image: img, GPUs: []string{"GPU-a", "GPU-b"}, Env: map[string]string{"EPOCHS": "3"},
			Command: []string{"sh", "-c", `echo "cuda=$CUDA_VISIBLE_DEVICES nvidia=$NVIDIA_VISIBLE_DEVICES lease=$IDLEGPU_LEASE_ID epochs=$EPOCHS"; sleep 0.2; echo oops >&2; exit 3`}})
		require.NoError(t, err)
		waitDone(t, j, 60*time.Second)
		require.Equal(t, Status{Exited: true, ExitCode: 3}, j.Status())
		require.Equal(t, "cuda=GPU-a,GPU-b nvidia=GPU-a,GPU-b lease="+strconv.FormatUint(base+1, 10)+" epochs=3\noops\n", logs(t, j))
		requireGone(t, cli, ContainerName(base+1))
		require.Equal(t, [][]string{{"GPU-a", "GPU-b"}}, hook.Calls(), "GPU memory checked once the container is gone")
		require.Empty(t, j.PIDs())
		require.NoError(t, j.Stop(ctx), "stopping an ended job only repeats the removal")
		require.Len(t, hook.Calls(), 1)
	})

	t.Run("stop ends a long job within the grace period and cleans up", func(t *testing.T) {
		hook := &gpuHook{}
		d := newRunner(t, hook)
		// PID 1 of a container ignores SIGTERM without a handler: the kill
		// after the grace period ends it. The forked sleep must be listed too.
		j, err := d.Start(ctx, Spec{LeaseID: base + 2, Image: img, GPUs: []string{"GPU-c"},
			Command: []string{"sh", "-c", "sleep 60 & exec sleep 61"}})
		require.NoError(t, err)
		require.True(t, j.Status().Running)
		require.Eventually(t, func() bool { return len(j.PIDs()) == 2 }, 10*time.Second, 50*time.Millisecond, "pids %v", j.PIDs())
		info, err := cli.ContainerInspect(ctx, ContainerName(base+2))
		require.NoError(t, err)
		pids := j.PIDs()
		top, err := cli.ContainerTop(ctx, info.ID, []string{"-eo", "pid"})
		require.NoError(t, err, "the daemon lists the container's processes (ps on its host)")
		fromTop, ok := topPIDs(top)
		require.True(t, ok)
		require.ElementsMatch(t, fromTop, descendants(uint32(info.State.Pid)), "ContainerTop and the /proc fallback agree")
		require.Contains(t, pids, uint32(info.State.Pid), "host PIDs, the container's init among them")
		sameHost := fileExists("/proc/" + strconv.Itoa(info.State.Pid))

		start := time.Now()
		require.NoError(t, j.Stop(ctx))
		elapsed := time.Since(start)
		require.GreaterOrEqual(t, elapsed, time.Second, "SIGTERM was ignored: the grace period ran")
		require.Less(t, elapsed, time.Second+15*time.Second)
		select {
		case <-j.Done():
		default:
			t.Fatal("Stop returned before the job ended")
		}
		require.Equal(t, Status{Exited: true, ExitCode: 137, Err: "stopped"}, j.Status())
		requireGone(t, cli, info.ID)
		require.Equal(t, [][]string{{"GPU-c"}}, hook.Calls())
		if sameHost {
			for _, pid := range pids {
				require.Error(t, syscall.Kill(int(pid), 0), "pid %d survived", pid)
			}
		}
		require.NoError(t, j.Stop(ctx))
		require.Len(t, hook.Calls(), 1)
	})

	t.Run("container configuration", func(t *testing.T) {
		d := newRunner(t, &gpuHook{})
		j, err := d.Start(ctx, Spec{LeaseID: base + 3, Image: img, GPUs: []string{"GPU-d"}, Command: []string{"sleep", "60"},
			CPUs: 0.5, MemoryBytes: 64 << 20, ShmBytes: 16 << 20})
		require.NoError(t, err)
		defer func() { require.NoError(t, j.Stop(ctx)) }()
		info, err := cli.ContainerInspect(ctx, ContainerName(base+3))
		require.NoError(t, err)
		hc := info.HostConfig
		require.False(t, hc.Privileged)
		require.Equal(t, container.NetworkMode("none"), hc.NetworkMode)
		require.Equal(t, int64(64<<20), hc.Memory)
		require.Equal(t, int64(5e8), hc.NanoCPUs)
		require.Equal(t, int64(16<<20), hc.ShmSize)
		require.Equal(t, []string{"ALL"}, []string(hc.CapDrop))
		require.Empty(t, hc.CapAdd)
		require.Equal(t, []string{"no-new-privileges"}, hc.SecurityOpt)
		require.NotNil(t, hc.PidsLimit)
		require.Equal(t, int64(DefaultPidsLimit), *hc.PidsLimit)
		require.Empty(t, hc.DeviceRequests, "no device requests without the NVIDIA runtime")
		require.True(t, hc.ReadonlyRootfs, "read-only unless the spec allows root")
		require.Equal(t, "65534:65534", info.Config.User)
		require.Contains(t, hc.Mounts, mount.Mount{Type: mount.TypeTmpfs, Target: "/tmp",
			TmpfsOptions: &mount.TmpfsOptions{SizeBytes: 16 << 20, Mode: 0o1777}}, "a quarter of the memory")
		require.False(t, hc.AutoRemove, "removed by the runner once the exit is recorded")
		require.Equal(t, strconv.FormatUint(base+3, 10), info.Config.Labels[LeaseLabel])
		require.Equal(t, []string{"sleep", "60"}, []string(info.Config.Cmd))
		require.Subset(t, info.Config.Env, []string{"CUDA_VISIBLE_DEVICES=GPU-d", "NVIDIA_VISIBLE_DEVICES=GPU-d", "IDLEGPU_LEASE_ID=" + strconv.FormatUint(base+3, 10)})
		require.Empty(t, info.NetworkSettings.Networks["bridge"], "no bridge network")
	})

	t.Run("a leftover container of the lease is removed at start", func(t *testing.T) {
		stale, err := cli.ContainerCreate(ctx, &container.Config{Image: img, Cmd: []string{"sleep", "60"}},
			&container.HostConfig{NetworkMode: "none"}, nil, nil, ContainerName(base+4))
		require.NoError(t, err)
		require.NoError(t, cli.ContainerStart(ctx, stale.ID, container.StartOptions{}))
		d := newRunner(t, &gpuHook{})
		j, err := d.Start(ctx, Spec{LeaseID: base + 4, Image: img, Command: []string{"echo", "fresh"}})
		require.NoError(t, err)
		requireGone(t, cli, stale.ID)
		waitDone(t, j, 60*time.Second)
		require.Equal(t, Status{Exited: true, ExitCode: 0}, j.Status())
		require.Equal(t, "fresh\n", logs(t, j))
	})

	t.Run("a restarted agent adopts the running container", func(t *testing.T) {
		hook := &gpuHook{}
		opts := limited(DockerOptions{LogDir: t.TempDir(), Grace: time.Second, GPUMemoryFree: hook.free})
		spec := Spec{LeaseID: base + 6, Image: img, GPUs: []string{"GPU-e"},
			Command: []string{"sh", "-c", `i=0; while true; do i=$((i+1)); echo tick $i; sleep 0.1; done`}}
		oldAPI := newKillableAPI(cli)
		old, err := NewDocker(oldAPI, opts).Start(ctx, spec)
		require.NoError(t, err)
		require.Eventually(t, func() bool { return len(ticks(t, logs(t, old))) >= 3 }, 30*time.Second, 50*time.Millisecond)

		oldAPI.kill() // the agent is SIGKILLed: its streams break, the container runs on
		waitDone(t, old, 30*time.Second)
		info, err := cli.ContainerInspect(ctx, ContainerName(base+6))
		require.NoError(t, err)
		require.True(t, info.State.Running)
		copied := len(ticks(t, logs(t, old)))

		j, err := NewDocker(cli, opts).Adopt(ctx, spec)
		require.NoError(t, err)
		require.Equal(t, Status{Running: true}, j.Status())
		require.Contains(t, j.PIDs(), uint32(info.State.Pid))
		require.Eventually(t, func() bool { return len(ticks(t, logs(t, j))) >= copied+5 }, 30*time.Second, 50*time.Millisecond,
			"the log keeps growing")
		got := ticks(t, logs(t, j))
		for i := 1; i < len(got); i++ {
			require.Greater(t, got[i], got[i-1], "nothing copied twice: %v", got)
		}

		require.NoError(t, j.Stop(ctx))
		require.Equal(t, Status{Exited: true, ExitCode: 137, Err: "stopped"}, j.Status())
		requireGone(t, cli, info.ID)
		require.Equal(t, [][]string{{"GPU-e"}}, hook.Calls(), "GPU memory checked once, by the new agent")
		_, err = NewDocker(cli, opts).Adopt(ctx, spec)
		require.ErrorIs(t, err, ErrNotRunning)
	})

	t.Run("a container that exited while the agent was away is removed, not adopted", func(t *testing.T) {
		hook := &gpuHook{}
		opts := limited(DockerOptions{LogDir: t.TempDir(), Grace: time.Second, GPUMemoryFree: hook.free})
		spec := Spec{LeaseID: base + 7, Image: img, GPUs: []string{"GPU-f"}, Command: []string{"sh", "-c", "echo hi; sleep 1; exit 4"}}
		oldAPI := newKillableAPI(cli)
		old, err := NewDocker(oldAPI, opts).Start(ctx, spec)
		require.NoError(t, err)
		oldAPI.kill()
		waitDone(t, old, 30*time.Second)
		require.Eventually(t, func() bool {
			info, err := cli.ContainerInspect(ctx, ContainerName(base+7))
			return err == nil && !info.State.Running
		}, 30*time.Second, 50*time.Millisecond)

		j, err := NewDocker(cli, opts).Adopt(ctx, spec)
		require.ErrorIs(t, err, ErrNotRunning)
		require.Nil(t, j)
		requireGone(t, cli, ContainerName(base+7))
		require.Equal(t, [][]string{{"GPU-f"}}, hook.Calls())
	})

	t.Run("an image not on the host is not pulled when pulling is off", func(t *testing.T) {
		d := NewDocker(cli, limited(DockerOptions{LogDir: t.TempDir(), RequireDigest: true}))
		_, err := d.Start(ctx, Spec{LeaseID: base + 5, Command: []string{"true"},
			Image: "example.invalid/nothing@sha256:" + "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"})
		require.ErrorIs(t, err, ErrImageMissing)
		requireGone(t, cli, ContainerName(base+5))
	})
}

// panicAPI fails any call: specs refused must never reach the daemon.
type panicAPI struct{ DockerAPI }

func TestDockerRejectsBadSpecs(t *testing.T) {
	const digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	good := Spec{LeaseID: 1, Image: "ghcr.io/acme/train@" + digest, GPUs: []string{"GPU-a"}, Command: []string{"true"}}
	cases := []struct {
		name string
		opts DockerOptions
		spec func(s *Spec)
	}{
		{"tag instead of digest", DockerOptions{RequireDigest: true}, func(s *Spec) { s.Image = "ghcr.io/acme/train:latest" }},
		{"bare name", DockerOptions{RequireDigest: true}, func(s *Spec) { s.Image = "busybox" }},
		{"image id is not a repo digest", DockerOptions{RequireDigest: true}, func(s *Spec) { s.Image = digest }},
		{"short digest", DockerOptions{RequireDigest: true}, func(s *Spec) { s.Image = "acme/train@sha256:0123" }},
		{"no image", DockerOptions{}, func(s *Spec) { s.Image = "" }},
		{"host network", DockerOptions{Network: "host"}, func(*Spec) {}},
		{"host network, any case", DockerOptions{Network: "HOST"}, func(*Spec) {}},
		{"another container's network", DockerOptions{Network: "container:abc"}, func(*Spec) {}},
		{"negative memory", DockerOptions{}, func(s *Spec) { s.MemoryBytes = -1 }},
		{"negative shm", DockerOptions{}, func(s *Spec) { s.ShmBytes = -1 }},
		{"negative CPUs", DockerOptions{}, func(s *Spec) { s.CPUs = -0.5 }},
		{"empty GPU id", DockerOptions{}, func(s *Spec) { s.GPUs = []string{""} }},
		{"GPU list smuggled in one id", DockerOptions{}, func(s *Spec) { s.GPUs = []string{"GPU-a,GPU-b"} }},
		{"manifest sets the visible devices", DockerOptions{}, func(s *Spec) { s.Env = map[string]string{"NVIDIA_VISIBLE_DEVICES": "all"} }},
		{"manifest sets CUDA devices", DockerOptions{}, func(s *Spec) { s.Env = map[string]string{"CUDA_VISIBLE_DEVICES": "0"} }},
		{"manifest sets the lease id", DockerOptions{}, func(s *Spec) { s.Env = map[string]string{"IDLEGPU_LEASE_ID": "9"} }},
		{"malformed env key", DockerOptions{}, func(s *Spec) { s.Env = map[string]string{"A=B": "c"} }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.LogDir = t.TempDir()
			spec := good
			tc.spec(&spec)
			_, err := NewDocker(panicAPI{}, tc.opts).Start(context.Background(), spec)
			require.ErrorIs(t, err, ErrInvalidSpec)
		})
	}
	for _, ref := range []string{"ghcr.io/acme/train@" + digest, "acme/train:v1@" + digest, "busybox@" + digest} {
		require.NoError(t, validateImage(ref, true), ref)
	}
}

func TestDockerContainerConfig(t *testing.T) {
	spec := Spec{LeaseID: 7, Image: "img", Command: []string{"python", "train.py"}, GPUs: []string{"GPU-a", "GPU-b"},
		Env: map[string]string{"B": "2", "A": "1"}, CPUs: 2.5, MemoryBytes: 1 << 30, ShmBytes: 2 << 30}
	cfg, hc := NewDocker(panicAPI{}, DefaultDockerOptions("/logs")).containerConfig(spec)
	require.Equal(t, []string{"A=1", "B=2", "CUDA_VISIBLE_DEVICES=GPU-a,GPU-b", "NVIDIA_VISIBLE_DEVICES=GPU-a,GPU-b", "IDLEGPU_LEASE_ID=7",
		"HOME=/scratch", "TMPDIR=/tmp"}, cfg.Env)
	require.Equal(t, map[string]string{LeaseLabel: "7"}, cfg.Labels)
	require.Equal(t, 10, *cfg.StopTimeout)
	require.Equal(t, []container.DeviceRequest{{Driver: "nvidia", DeviceIDs: []string{"GPU-a", "GPU-b"}, Capabilities: [][]string{{"gpu"}}}}, hc.DeviceRequests)
	require.Equal(t, container.NetworkMode("none"), hc.NetworkMode)
	require.Equal(t, int64(2_500_000_000), hc.NanoCPUs)
	require.Equal(t, int64(1<<30), hc.Memory)
	require.Equal(t, int64(1<<30), hc.MemorySwap, "no swap beyond the limit")
	require.Equal(t, int64(2<<30), hc.ShmSize)
	require.False(t, hc.Privileged)

	// No GPUs leased: no device request even where GPUs are real.
	spec.GPUs = nil
	_, hc = NewDocker(panicAPI{}, DefaultDockerOptions("/logs")).containerConfig(spec)
	require.Empty(t, hc.DeviceRequests)
	// GPUs leased but no NVIDIA runtime (tests): none either.
	spec.GPUs = []string{"GPU-a"}
	_, hc = NewDocker(panicAPI{}, DockerOptions{}).containerConfig(spec)
	require.Empty(t, hc.DeviceRequests)

	require.Equal(t, 1, graceSeconds(time.Millisecond))
	require.Equal(t, 2, graceSeconds(1500*time.Millisecond))
}

func TestTopPIDs(t *testing.T) {
	pids, ok := topPIDs(container.TopResponse{Titles: []string{"PID"}, Processes: [][]string{{"12"}, {"345"}}})
	require.True(t, ok)
	require.Equal(t, []uint32{12, 345}, pids)
	_, ok = topPIDs(container.TopResponse{Titles: []string{"UID", "CMD"}})
	require.False(t, ok)
	// The /proc fallback finds this process below its parent.
	require.Contains(t, descendants(uint32(os.Getppid())), uint32(os.Getpid()))
}

// TestDockerAdoptAfterAgentDeath (fake daemon): the agent that started a
// container is killed; a restarted agent's runner adopts the container, its
// log keeps growing without repeating what was copied, and the job ends
// through Stop or by itself with the usual cleanup.
func TestDockerAdoptAfterAgentDeath(t *testing.T) {
	cases := []struct {
		name       string
		end        func(t *testing.T, fake *fakeDocker, j Job)
		wantStatus Status
	}{
		{
			name: "stopped by the new agent",
			end: func(t *testing.T, _ *fakeDocker, j Job) {
				require.NoError(t, j.Stop(context.Background()))
			},
			wantStatus: Status{Exited: true, ExitCode: 137, Err: "stopped"},
		},
		{
			// The old agent's runner, or an operator's docker rm, removing
			// it too: Stop waits for that removal instead of failing.
			name: "stopped while another removal is under way",
			end: func(t *testing.T, fake *fakeDocker, j Job) {
				fake.mu.Lock()
				fake.removing = 3
				fake.mu.Unlock()
				require.NoError(t, j.Stop(context.Background()))
				fake.mu.Lock()
				defer fake.mu.Unlock()
				require.Zero(t, fake.removing, "asked again until the container was gone")
			},
			wantStatus: Status{Exited: true, ExitCode: 137, Err: "stopped"},
		},
		{
			name: "exits by itself",
			end: func(t *testing.T, fake *fakeDocker, j Job) {
				fake.exit(ContainerName(5), 3)
				waitDone(t, j, 10*time.Second)
			},
			wantStatus: Status{Exited: true, ExitCode: 3},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			fake := newFakeDocker()
			hook := &gpuHook{}
			opts := limited(DockerOptions{LogDir: t.TempDir(), Grace: time.Second, GPUMemoryFree: hook.free})
			spec := Spec{LeaseID: 5, Image: "img", GPUs: []string{"GPU-a"}, Command: []string{"train"}}
			name := ContainerName(5)

			oldAPI := newKillableAPI(fake)
			old, err := NewDocker(oldAPI, opts).Start(ctx, spec)
			require.NoError(t, err)
			fake.print(name, "one\n")
			require.Eventually(t, func() bool { return logs(t, old) == "one\n" }, 5*time.Second, 10*time.Millisecond)

			oldAPI.kill()
			// The old agent's goroutines wind down (so none of them writes the
			// log any more); the container runs on.
			waitDone(t, old, 10*time.Second)
			require.Equal(t, "running", fake.state(name))
			fake.print(name, "two\n") // while no agent follows: in the container's log only

			j, err := NewDocker(fake, opts).Adopt(ctx, spec)
			require.NoError(t, err)
			require.Equal(t, Status{Running: true}, j.Status())
			info, err := fake.ContainerInspect(ctx, name)
			require.NoError(t, err)
			require.Equal(t, []uint32{uint32(info.State.Pid)}, j.PIDs())
			fake.print(name, "three\n")
			require.Eventually(t, func() bool { return logs(t, j) == "one\nthree\n" }, 5*time.Second, 10*time.Millisecond,
				"appended to the same log, nothing copied twice: %q", logs(t, j))

			tc.end(t, fake, j)
			require.Equal(t, tc.wantStatus, j.Status())
			require.Equal(t, "missing", fake.state(name), "the container is removed")
			require.Equal(t, [][]string{{"GPU-a"}}, hook.Calls(), "GPU memory checked once, by the new agent")
			require.Empty(t, j.PIDs())
			_, err = NewDocker(fake, opts).Adopt(ctx, spec)
			require.ErrorIs(t, err, ErrNotRunning)
		})
	}
}

// TestDockerAdoptFindsNothing (fake daemon): what Adopt refuses, and what it
// leaves behind.
func TestDockerAdoptFindsNothing(t *testing.T) {
	const lease = 6
	name := ContainerName(lease)
	cases := []struct {
		name      string
		setup     func(fake *fakeDocker)
		wantState string // of the container named like the lease's, afterwards
		wantHook  [][]string
	}{
		{name: "no container", setup: func(*fakeDocker) {}, wantState: "missing"},
		{name: "a container of the name without the lease label", wantState: "running",
			setup: func(fake *fakeDocker) { fake.create(name, nil, true, 0) }},
		{name: "a container of the name labelled for another lease", wantState: "running",
			setup: func(fake *fakeDocker) { fake.create(name, map[string]string{LeaseLabel: "60"}, true, 0) }},
		{name: "the lease's container exited while the agent was away: removed", wantState: "missing",
			wantHook: [][]string{{"GPU-a"}},
			setup:    func(fake *fakeDocker) { fake.create(name, map[string]string{LeaseLabel: "6"}, false, 0) }},
		// Started with egress, found by a runner that cannot shape it (its
		// egress network gone from the config): stopped, never run unshaped.
		{name: "the lease's container has egress this runner cannot shape: stopped", wantState: "missing",
			wantHook: [][]string{{"GPU-a"}},
			setup: func(fake *fakeDocker) {
				fake.create(name, map[string]string{LeaseLabel: "6", EgressLabel: "40"}, true, 0)
			}},
		{name: "the lease's container has a malformed egress label: stopped", wantState: "missing",
			wantHook: [][]string{{"GPU-a"}},
			setup: func(fake *fakeDocker) {
				fake.create(name, map[string]string{LeaseLabel: "6", EgressLabel: "fast"}, true, 0)
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fake := newFakeDocker()
			tc.setup(fake)
			hook := &gpuHook{}
			d := NewDocker(fake, limited(DockerOptions{LogDir: t.TempDir(), GPUMemoryFree: hook.free}))
			j, err := d.Adopt(context.Background(), Spec{LeaseID: lease, Image: "img", GPUs: []string{"GPU-a"}})
			require.ErrorIs(t, err, ErrNotRunning)
			require.Nil(t, j)
			require.Equal(t, tc.wantState, fake.state(name))
			require.Equal(t, tc.wantHook, hook.Calls())
		})
	}
}

// ticks are the numbers of a log's "tick N" lines, in order.
func ticks(t *testing.T, log string) []int {
	t.Helper()
	var out []int
	for _, line := range strings.Split(strings.TrimSpace(log), "\n") {
		if n, ok := strings.CutPrefix(line, "tick "); ok {
			i, err := strconv.Atoi(n)
			require.NoError(t, err, "line %q", line)
			out = append(out, i)
		}
	}
	return out
}
