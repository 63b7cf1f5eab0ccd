package runner

import (
	"context"
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

// cgroupProcess is a process runner with job cgroups, or the test is
// skipped (not root, or no cgroup v2 here).
func cgroupProcess(t *testing.T, dir string) *Process {
	t.Helper()
	p := newProcess(t, dir)
	if p.CgroupDir == "" {
		t.Skip("cannot create cgroup v2 groups here: the process runner falls back to process groups")
	}
	p.Grace = 300 * time.Millisecond
	return p
}

// setsidChild is the job's process in a session of its own (its process
// group is not the job's), found among pids.
func setsidChild(j Job, pids []uint32) (uint32, bool) {
	for _, pid := range pids {
		if st, ok := readProcStat(int(pid)); ok && st.pgrp != j.(*processJob).pgid {
			return pid, true
		}
	}
	return 0, false
}

// TestCgroupStopKillsSetsidChildren: a child that left the job's process
// group and session is listed among the job's PIDs and dies with Stop.
func TestCgroupStopKillsSetsidChildren(t *testing.T) {
	p := cgroupProcess(t, t.TempDir())
	j, err := p.Start(context.Background(), Spec{LeaseID: 11, GPUs: []string{"GPU-a"},
		Command: []string{"sh", "-c", `setsid sleep 1000 & echo started; sleep 1000`}})
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		_, escaped := setsidChild(j, j.PIDs())
		return strings.Contains(logs(t, j), "started") && len(j.PIDs()) == 3 && escaped
	}, 5*time.Second, 20*time.Millisecond)
	pids := j.PIDs()
	cg := filepath.Join(p.CgroupDir, "lease-11")
	inCgroup, err := cgroupProcs(cg)
	require.NoError(t, err)
	require.ElementsMatch(t, pids, u32s(inCgroup), "PIDs are the cgroup's processes")
	escaped, _ := setsidChild(j, pids)
	require.True(t, slices.Contains(pids, uint32(j.(*processJob).pgid)))

	require.NoError(t, j.Stop(context.Background()))
	require.Equal(t, Status{ExitCode: -1, Err: "stopped"}, j.Status())
	for _, pid := range pids {
		require.True(t, processGone(pid), "pid %d survived (setsid child %d)", pid, escaped)
	}
	require.NoDirExists(t, cg, "the job's cgroup is removed")
	require.Empty(t, j.PIDs())
}

// TestCgroupLeftoversDieWithTheLeader: a job's leader exits leaving a
// daemonised child; the job ends, and so does the child.
func TestCgroupLeftoversDieWithTheLeader(t *testing.T) {
	p := cgroupProcess(t, t.TempDir())
	j, err := p.Start(context.Background(), Spec{LeaseID: 12, GPUs: []string{"GPU-a"},
		Command: []string{"sh", "-c", `setsid sleep 1000 & echo $!`}})
	require.NoError(t, err)
	waitDone(t, j, 5*time.Second)
	require.Equal(t, Status{}, j.Status(), "the leader's exit status")
	child, err := strconv.Atoi(strings.TrimSpace(logs(t, j)))
	require.NoError(t, err)
	require.True(t, processGone(uint32(child)), "the daemonised child %d outlived its job", child)
	require.NoDirExists(t, filepath.Join(p.CgroupDir, "lease-12"))
}

// TestCgroupAdoptFindsAJobThatClearedItsEnvironment: a job whose processes
// carry none of the lease's variables is found by its cgroup after a
// restart; the process-group lookup could not find it.
func TestCgroupAdoptFindsAJobThatClearedItsEnvironment(t *testing.T) {
	dir := t.TempDir()
	spec := Spec{LeaseID: 13, GPUs: []string{"GPU-a"}, Command: []string{"env", "-i", "sh", "-c", "sleep 1000; true"}}
	old, err := cgroupProcess(t, dir).Start(context.Background(), spec)
	require.NoError(t, err)
	require.Eventually(t, func() bool { return len(old.PIDs()) == 2 }, 5*time.Second, 20*time.Millisecond)
	pids := old.PIDs()
	for _, pid := range pids {
		require.False(t, hasEnv(int(pid), "IDLEGPU_LEASE_ID=13"), "pid %d kept the lease's variables", pid)
	}

	_, err = (&Process{Dir: dir, Grace: time.Second}).Adopt(context.Background(), spec)
	require.ErrorIs(t, err, ErrNotRunning, "without cgroups the job is lost")

	restarted := cgroupProcess(t, dir)
	j, err := restarted.Adopt(context.Background(), spec)
	require.NoError(t, err)
	require.Equal(t, Status{Running: true}, j.Status())
	require.ElementsMatch(t, pids, j.PIDs())

	require.NoError(t, j.Stop(context.Background()))
	select {
	case <-j.Done():
	default:
		t.Fatal("Stop returned before the job ended")
	}
	require.Equal(t, Status{ExitCode: -1, Err: "stopped"}, j.Status())
	for _, pid := range pids {
		require.True(t, processGone(pid), "pid %d survived", pid)
	}
	_, err = restarted.Adopt(context.Background(), spec)
	require.ErrorIs(t, err, ErrNotRunning, "an ended job is not adopted again")
}

// TestCgroupAdoptedJobEndsWithItsLeader: after a restart, a job whose
// leader died while the agent was down, a child running on, is over: the
// child is killed and the job ends with its exit status unknown.
func TestCgroupAdoptedJobEndsWithItsLeader(t *testing.T) {
	p := cgroupProcess(t, t.TempDir())
	dir, fd, err := createJobCgroup(p.CgroupDir, 14)
	require.NoError(t, err)
	defer fd.Close()
	inCgroup := func(name string, args ...string) *exec.Cmd {
		cmd := exec.Command(name, args...)
		cmd.SysProcAttr = &syscall.SysProcAttr{UseCgroupFD: true, CgroupFD: int(fd.Fd())}
		require.NoError(t, cmd.Start())
		return cmd
	}
	leader := inCgroup("true")
	require.NoError(t, leader.Wait())
	child := inCgroup("sleep", "1000")
	go func() { _ = child.Wait() }()
	writePGID(t, p, 14, strconv.Itoa(leader.Process.Pid))

	spec := Spec{LeaseID: 14, GPUs: []string{"GPU-a"}}
	j, err := (&Process{Dir: p.Dir, Grace: time.Second, CgroupDir: p.CgroupDir}).Adopt(context.Background(), spec)
	require.NoError(t, err)
	waitDone(t, j, 5*time.Second)
	require.Equal(t, Status{ExitCode: -1, Err: ExitUnknown}, j.Status())
	require.True(t, processGone(uint32(child.Process.Pid)))
	require.NoDirExists(t, dir)
}

// TestCgroupStartRefusesALiveEarlierJob: a lease's cgroup that still holds
// processes is its running job, never a second one beside it.
func TestCgroupStartRefusesALiveEarlierJob(t *testing.T) {
	p := cgroupProcess(t, t.TempDir())
	spec := Spec{LeaseID: 15, GPUs: []string{"GPU-a"}, Command: []string{"sleep", "1000"}}
	first, err := p.Start(context.Background(), spec)
	require.NoError(t, err)
	_, err = p.Start(context.Background(), spec)
	require.ErrorContains(t, err, "lease-15 still holds processes")
	require.True(t, first.Status().Running)
	require.NoError(t, first.Stop(context.Background()))

	again, err := p.Start(context.Background(), Spec{LeaseID: 15, GPUs: []string{"GPU-a"}, Command: []string{"true"}})
	require.NoError(t, err, "an ended job's cgroup is free again")
	waitDone(t, again, 5*time.Second)
	require.Equal(t, Status{}, again.Status())
}

// TestCgroupKillWithoutCgroupKill: the freeze-and-signal path (kernels
// before cgroup.kill) empties a cgroup too.
func TestCgroupKillWithoutCgroupKill(t *testing.T) {
	p := cgroupProcess(t, t.TempDir())
	dir, fd, err := createJobCgroup(p.CgroupDir, 16)
	require.NoError(t, err)
	defer fd.Close()
	cmd := exec.Command("sh", "-c", "sleep 1000 & sleep 1000 & wait")
	cmd.SysProcAttr = &syscall.SysProcAttr{UseCgroupFD: true, CgroupFD: int(fd.Fd())}
	require.NoError(t, cmd.Start())
	cg := &jobCgroup{dir: dir, leader: cmd.Process.Pid}
	require.Eventually(t, func() bool { pids, _ := cg.pids(); return len(pids) == 3 }, 5*time.Second, 20*time.Millisecond)

	require.NoError(t, cg.signal(syscall.SIGKILL)) // what kill does without cgroup.kill, less the freeze
	_ = cmd.Wait()
	require.Eventually(t, func() bool { pids, _ := cg.pids(); return len(pids) == 0 }, 5*time.Second, 20*time.Millisecond)
	require.NoError(t, cg.drain())
	require.NoDirExists(t, dir)
}

func TestUnescapeMountPath(t *testing.T) {
	require.Equal(t, "/sys/fs/cgroup", unescapeMountPath("/sys/fs/cgroup"))
	require.Equal(t, "/mnt/my cgroup\\x", unescapeMountPath(`/mnt/my\040cgroup\x`))
}

func u32s(pids []int) []uint32 {
	out := make([]uint32, len(pids))
	for i, pid := range pids {
		out[i] = uint32(pid)
	}
	return out
}
