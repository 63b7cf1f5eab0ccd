package runner

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// newProcess is NewProcess(dir), its job cgroups (if any) removed after
// the test.
func newProcess(t *testing.T, dir string) *Process {
	t.Helper()
	p, err := NewProcess(dir)
	require.NoError(t, err)
	if dir := p.CgroupDir; dir != "" {
		t.Cleanup(func() { removeJobCgroups(t, dir) })
	}
	return p
}

// legacyProcess is a process runner without cgroups, as where the agent
// cannot create them.
func legacyProcess(t *testing.T, dir string) *Process {
	p := newProcess(t, dir)
	p.CgroupDir = ""
	return p
}

// removeJobCgroups kills what a test left in a runner's job cgroups and
// removes them.
func removeJobCgroups(t *testing.T, parent string) {
	leases, _ := filepath.Glob(filepath.Join(parent, "lease-*"))
	for _, dir := range leases {
		require.NoError(t, (&jobCgroup{dir: dir}).drain())
	}
	require.NoDirExists(t, parent, "the last job's end removes the agent's cgroup")
}

func logs(t *testing.T, j Job) string {
	t.Helper()
	r, err := j.Logs()
	require.NoError(t, err)
	defer r.Close()
	b, err := io.ReadAll(r)
	require.NoError(t, err)
	return string(b)
}

func TestProcessJobSeesOnlyItsGPUsAndEnds(t *testing.T) {
	t.Setenv("IDLEGPU_SECRET", "do-not-leak")
	p := newProcess(t, t.TempDir())
	j, err := p.Start(context.Background(), Spec{LeaseID: 7, GPUs: []string{"GPU-a", "GPU-b"}, Env: map[string]string{"EPOCHS": "3"},
		Command: []string{"sh", "-c", `echo "cuda=$CUDA_VISIBLE_DEVICES nvidia=$NVIDIA_VISIBLE_DEVICES lease=$IDLEGPU_LEASE_ID epochs=$EPOCHS secret=$IDLEGPU_SECRET"; exit 3`}})
	require.NoError(t, err)
	<-j.Done()
	require.Equal(t, Status{ExitCode: 3}, j.Status())
	require.Equal(t, "cuda=GPU-a,GPU-b nvidia=GPU-a,GPU-b lease=7 epochs=3 secret=\n", logs(t, j))
	require.Empty(t, j.PIDs())
	require.NoError(t, j.Stop(context.Background()), "stopping an ended job is a no-op")
}

// TestProcessStopKillsTheWholeGroup: a job that forks and ignores SIGTERM
// is killed, children included, after the grace period.
func TestProcessStopKillsTheWholeGroup(t *testing.T) {
	p := newProcess(t, t.TempDir())
	p.Grace = 300 * time.Millisecond
	j, err := p.Start(context.Background(), Spec{LeaseID: 8, GPUs: []string{"GPU-a"},
		Command: []string{"sh", "-c", `trap '' TERM; sleep 60 & sleep 60 & echo started; wait`}})
	require.NoError(t, err)
	require.Eventually(t, func() bool { return strings.Contains(logs(t, j), "started") && len(j.PIDs()) == 3 }, 5*time.Second, 20*time.Millisecond)
	pids := j.PIDs()
	require.True(t, j.Status().Running)

	start := time.Now()
	require.NoError(t, j.Stop(context.Background()))
	require.GreaterOrEqual(t, time.Since(start), 300*time.Millisecond, "SIGTERM was ignored: the grace period ran")
	st := j.Status()
	require.False(t, st.Running)
	require.Equal(t, "stopped", st.Err)
	for _, pid := range pids {
		require.Eventually(t, func() bool { return exited(pid) }, 2*time.Second, 20*time.Millisecond, "pid %d survived", pid)
	}
	require.True(t, slices.Contains(pids, uint32(j.(*processJob).pgid)))
}

// exited tells whether a process has ended. A zombie has: the forked
// children are orphans whose reaping is up to init (or whatever runs as
// PID 1 in a CI container), which may take its time.
func exited(pid uint32) bool {
	if syscall.Kill(int(pid), 0) != nil {
		return true
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	// "pid (comm) S ...": the state follows the last ')', as comm may hold one.
	i := bytes.LastIndexByte(stat, ')')
	return i >= 0 && i+2 < len(stat) && (stat[i+2] == 'Z' || stat[i+2] == 'X')
}

// TestExitedCountsZombies: the check above tells a live process from an
// unreaped dead one.
func TestExitedCountsZombies(t *testing.T) {
	cmd := exec.Command("sleep", "60")
	require.NoError(t, cmd.Start())
	pid := uint32(cmd.Process.Pid)
	require.False(t, exited(pid))
	require.NoError(t, cmd.Process.Kill())
	require.Eventually(t, func() bool { return exited(pid) }, 2*time.Second, 10*time.Millisecond, "a killed, unreaped child is a zombie")
	require.NoError(t, syscall.Kill(int(pid), 0), "not yet reaped")
	_ = cmd.Wait()
	require.True(t, exited(pid))
}

func TestProcessRejectsBadSpecs(t *testing.T) {
	p := newProcess(t, t.TempDir())
	_, err := p.Start(context.Background(), Spec{LeaseID: 1, GPUs: []string{"GPU-a"}})
	require.ErrorIs(t, err, ErrInvalidSpec)
	_, err = p.Start(context.Background(), Spec{LeaseID: 1, Command: []string{"true"}})
	require.ErrorIs(t, err, ErrInvalidSpec)
	_, err = p.Start(context.Background(), Spec{LeaseID: 1, GPUs: []string{"GPU-a"}, Command: []string{"true"},
		Env: map[string]string{"NVIDIA_VISIBLE_DEVICES": "all"}})
	require.ErrorIs(t, err, ErrInvalidSpec, "the manifest may not widen the GPU selection")
	_, err = p.Start(context.Background(), Spec{LeaseID: 1, GPUs: []string{"GPU-a,GPU-b"}, Command: []string{"true"}})
	require.ErrorIs(t, err, ErrInvalidSpec, "one id may not smuggle in two")
	_, err = p.Start(context.Background(), Spec{LeaseID: 1, GPUs: []string{"GPU-a"}, Command: []string{"/nonexistent/binary"}})
	require.ErrorIs(t, err, os.ErrNotExist)
}

// processGone tells whether a process has exited (a zombie counts: its
// parent may be gone and nobody reaps it soon).
func processGone(pid uint32) bool {
	st, ok := readProcStat(int(pid))
	return !ok || !st.live()
}

// TestProcessAdopt: without cgroups, the agent dies (its Job handle is
// dropped, never stopped) while the job runs on in its own group; a fresh
// runner on the same directory adopts it.
func TestProcessAdopt(t *testing.T) {
	cases := []struct {
		name    string
		command string
		// ready tells when the old agent may die; it gets the old handle.
		ready func(t *testing.T, old Job) bool
		// leaderGone: the old handle has ended, the group lives on without its leader.
		leaderGone bool
		// stop: the adopted job is stopped; else it ends by itself.
		stop       bool
		wantStatus Status
		wantLog    string
	}{
		{
			name:    "running job, stopped after adoption",
			command: `echo started; sleep 30`,
			ready:   func(t *testing.T, old Job) bool { return strings.Contains(logs(t, old), "started") },
			stop:    true, wantStatus: Status{ExitCode: -1, Err: "stopped"}, wantLog: "started\n",
		},
		{
			name:    "leader gone, a child runs on",
			command: `sleep 30 & echo started`,
			// The leader (sh) has exited; its background sleep is the job.
			ready: func(t *testing.T, old Job) bool {
				select {
				case <-old.Done():
					return strings.Contains(logs(t, old), "started")
				default:
					return false
				}
			},
			leaderGone: true,
			stop:       true, wantStatus: Status{ExitCode: -1, Err: "stopped"}, wantLog: "started\n",
		},
		{
			name:       "job ends by itself after adoption",
			command:    `echo started; sleep 1; echo bye`,
			ready:      func(t *testing.T, old Job) bool { return strings.Contains(logs(t, old), "started") },
			wantStatus: Status{ExitCode: -1, Err: ExitUnknown}, wantLog: "started\nbye\n",
		},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			spec := Spec{LeaseID: uint64(100 + i), GPUs: []string{"GPU-a"}, Command: []string{"sh", "-c", tc.command}}
			// The process-group fallback: with cgroups a job's leftovers
			// die with its leader (TestCgroup*).
			first := legacyProcess(t, dir)
			old, err := first.Start(context.Background(), spec)
			require.NoError(t, err)
			pgid := old.(*processJob).pgid
			t.Cleanup(func() { _ = syscall.Kill(-pgid, syscall.SIGKILL) })
			require.Eventually(t, func() bool { return tc.ready(t, old) }, 5*time.Second, 20*time.Millisecond)
			groupPIDs := old.PIDs()
			if tc.leaderGone {
				require.Empty(t, groupPIDs, "an ended handle lists nothing")
				members, err := groupMembers(pgid)
				require.NoError(t, err)
				groupPIDs = make([]uint32, len(members))
				for i, pid := range members {
					groupPIDs[i] = uint32(pid)
				}
				require.Len(t, groupPIDs, 1)
				require.NotEqual(t, uint32(pgid), groupPIDs[0])
			}

			// The old handle is dropped: a new agent, a new runner, the same Dir.
			restarted := &Process{Dir: dir, Grace: 300 * time.Millisecond}
			j, err := restarted.Adopt(context.Background(), spec)
			require.NoError(t, err)
			require.Equal(t, Status{Running: true}, j.Status())
			require.NotEmpty(t, j.PIDs())
			require.ElementsMatch(t, groupPIDs, j.PIDs(), "the adopted job is the job's process group")
			require.Contains(t, logs(t, j), "started", "the same log")

			if tc.stop {
				require.NoError(t, j.Stop(context.Background()))
				select {
				case <-j.Done():
				default:
					t.Fatal("Stop returned before the job ended")
				}
				for _, pid := range groupPIDs {
					require.True(t, processGone(pid), "pid %d survived", pid)
				}
			} else {
				waitDone(t, j, 5*time.Second)
			}
			require.Equal(t, tc.wantStatus, j.Status())
			require.Equal(t, tc.wantLog, logs(t, j))
			require.Empty(t, j.PIDs())
			require.NoError(t, j.Stop(context.Background()), "stopping an ended job is a no-op")
			_, err = restarted.Adopt(context.Background(), spec)
			require.ErrorIs(t, err, ErrNotRunning, "an ended job is not adopted again")
		})
	}
}

// TestProcessAdoptFindsNothing: no live job of the lease is ever adopted, in
// particular not a process that merely has the recorded PID.
func TestProcessAdoptFindsNothing(t *testing.T) {
	const lease = 200
	startGroupLeader := func(t *testing.T, env []string) int {
		cmd := exec.Command("sleep", "30")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		cmd.Env = env
		require.NoError(t, cmd.Start())
		t.Cleanup(func() {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		})
		return cmd.Process.Pid
	}
	cases := []struct {
		name string
		// setup prepares the runner's Dir for the lease (nil: nothing there).
		setup func(t *testing.T, p *Process)
	}{
		{name: "never started"},
		{name: "the job already exited", setup: func(t *testing.T, p *Process) {
			j, err := p.Start(context.Background(), Spec{LeaseID: lease, GPUs: []string{"GPU-a"}, Command: []string{"true"}})
			require.NoError(t, err)
			waitDone(t, j, 5*time.Second)
		}},
		{name: "the recorded pid is the test's own process", setup: func(t *testing.T, p *Process) {
			writePGID(t, p, lease, strconv.Itoa(os.Getpid()))
		}},
		{name: "the recorded pid leads an unrelated group", setup: func(t *testing.T, p *Process) {
			writePGID(t, p, lease, strconv.Itoa(startGroupLeader(t, []string{"PATH=/usr/bin:/bin"})))
		}},
		{name: "the recorded pid leads another lease's job", setup: func(t *testing.T, p *Process) {
			// IDLEGPU_LEASE_ID=2000 starts like the lease's =200 but is not it.
			other := startGroupLeader(t, []string{"PATH=/usr/bin:/bin", "IDLEGPU_LEASE_ID=" + strconv.Itoa(lease*10)})
			writePGID(t, p, lease, strconv.Itoa(other))
		}},
		{name: "malformed pgid file", setup: func(t *testing.T, p *Process) { writePGID(t, p, lease, "not a pid") }},
		{name: "pgid 0 (kill would hit the agent's own group)", setup: func(t *testing.T, p *Process) { writePGID(t, p, lease, "0") }},
		{name: "pgid 1", setup: func(t *testing.T, p *Process) { writePGID(t, p, lease, "1") }},
		{name: "negative pgid", setup: func(t *testing.T, p *Process) { writePGID(t, p, lease, "-1") }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := newProcess(t, t.TempDir())
			if tc.setup != nil {
				tc.setup(t, p)
			}
			j, err := (&Process{Dir: p.Dir, Grace: time.Second, CgroupDir: p.CgroupDir}).Adopt(context.Background(), Spec{LeaseID: lease, GPUs: []string{"GPU-a"}})
			require.ErrorIs(t, err, ErrNotRunning)
			require.Nil(t, j)
		})
	}
}

func writePGID(t *testing.T, p *Process, lease uint64, content string) {
	t.Helper()
	dir := p.leaseDir(lease)
	require.NoError(t, os.MkdirAll(dir, 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(dir, pgidFileName), []byte(content+"\n"), 0o600))
}

func TestProcessStartRecordsTheGroup(t *testing.T) {
	p := newProcess(t, t.TempDir())
	j, err := p.Start(context.Background(), Spec{LeaseID: 9, GPUs: []string{"GPU-a"}, Command: []string{"true"}})
	require.NoError(t, err)
	waitDone(t, j, 5*time.Second)
	b, err := os.ReadFile(filepath.Join(p.Dir, "lease-9", "pgid"))
	require.NoError(t, err)
	require.Equal(t, strconv.Itoa(j.(*processJob).pgid)+"\n", string(b))
}

func TestReadProcStat(t *testing.T) {
	st, ok := readProcStat(os.Getpid())
	require.True(t, ok)
	require.True(t, st.live())
	require.Equal(t, os.Getppid(), st.ppid)
	pgid, err := syscall.Getpgid(os.Getpid())
	require.NoError(t, err)
	require.Equal(t, pgid, st.pgrp)
	_, ok = readProcStat(-1)
	require.False(t, ok)
}

// TestProcessJobCannotReadTheAgentsFiles: as root, a job runs as its own
// user: it cannot read the agent's key beside the work directory, another
// lease's log, or list other jobs' directories; it works in a directory of
// its own outside the agent's home.
func TestProcessJobCannotReadTheAgentsFiles(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("isolation needs root; without it the process runner runs jobs as the agent's user (and says so)")
	}
	home := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(home, "endpoint.key"), []byte("AGENT-SECRET-KEY\n"), 0o600))
	jobRoot, err := os.MkdirTemp("", "idlegpu-jobs-test-")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(jobRoot) })
	p := newProcess(t, filepath.Join(home, "jobs"))
	require.True(t, p.Isolated)
	p.JobRoot = jobRoot

	other, err := p.Start(context.Background(), Spec{LeaseID: 41, GPUs: []string{"GPU-b"},
		Command: []string{"sh", "-c", "echo OTHER-LEASE-SECRET"}})
	require.NoError(t, err)
	<-other.Done()
	require.Equal(t, "OTHER-LEASE-SECRET\n", logs(t, other))

	j, err := p.Start(context.Background(), Spec{LeaseID: 42, GPUs: []string{"GPU-a"}, Command: []string{"sh", "-c", `
		echo "id=$(id -u):$(id -g) pwd=$(pwd) home=$HOME"
		cat ../../endpoint.key || echo "no key"
		cat ` + filepath.Join(home, "endpoint.key") + ` || echo "no key by path"
		cat ` + filepath.Join(home, "jobs", "lease-41", "job.log") + ` || echo "no other log"
		ls ` + jobRoot + ` || echo "no listing"
		echo ok > mine && cat mine`}})
	require.NoError(t, err)
	<-j.Done()
	out := logs(t, j)
	uid := DefaultJobUIDBase + 42
	work := filepath.Join(jobRoot, "lease-42")
	require.Contains(t, out, fmt.Sprintf("id=%d:%d pwd=%s home=%s\n", uid, uid, work, work))
	require.NotContains(t, out, "AGENT-SECRET-KEY")
	require.NotContains(t, out, "OTHER-LEASE-SECRET")
	for _, want := range []string{"no key\n", "no key by path\n", "no other log\n", "no listing\n", "ok\n"} {
		require.Contains(t, out, want)
	}
	fi, err := os.Stat(work)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o700)|os.ModeDir, fi.Mode())
	require.Equal(t, uint32(uid), fi.Sys().(*syscall.Stat_t).Uid)
}
