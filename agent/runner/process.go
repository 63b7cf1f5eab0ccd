package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Process runs a job as a local command in its own process group, with the
// leased GPUs in CUDA_VISIBLE_DEVICES / NVIDIA_VISIBLE_DEVICES. It is for
// development, tests and the demo only: nothing confines the job to its GPUs
// (it may unset the variables), and the agent's configuration refuses it
// without runner.unsafe_process_runner.
//
// As root (Isolated) each job runs as its own unprivileged user, uid and gid
// UIDBase + lease id mod JobUIDSpan, with no supplementary groups, in
// JobRoot/lease-N (0700, owned by that user, outside the agent's home): it
// cannot read the agent's keys, state or other leases' logs (Dir is the
// agent's, 0700) nor signal other leases' jobs. Without root that is not
// possible and the job runs as the agent's user; NewProcess logs so.
//
// Where the agent can create cgroup v2 groups (root, cgroup v2 mounted) each
// job runs in a cgroup of its own, CgroupDir/lease-N: every process it
// forks stays there, setsid and daemonised ones included, so Stop kills them
// all, PIDs lists them all (what NVML sees), no process outlives the job's
// leader, and a restarted agent's Adopt finds the job by its cgroup.
// Without cgroups the job is its process group, which a child leaves with
// setsid, and Adopt finds it by IDLEGPU_LEASE_ID, which a job may clear;
// NewProcess says so loudly.
//
// The job outlives the agent: Start records its leader's pid (its process
// group id) in Dir/lease-N/pgid, and a restarted agent's Adopt finds the job
// again from there and its cgroup.
type Process struct {
	// Dir holds one directory per lease with the job's log and process group id.
	Dir string
	// Grace is how long Stop waits after SIGTERM before SIGKILL.
	Grace time.Duration
	// Isolated runs each job as its own user in its own directory (root only).
	Isolated bool
	// UIDBase is the first uid and gid of isolated jobs.
	UIDBase uint32
	// JobRoot holds the isolated jobs' working directories.
	JobRoot string
	// CgroupDir is the cgroup v2 directory holding one cgroup per job;
	// empty runs jobs without cgroups (see Process).
	CgroupDir string
}

const (
	// DefaultJobUIDBase is the first uid of isolated jobs: above the ranges
	// distributions give to users and to subordinate-id maps' usual start.
	DefaultJobUIDBase = 200_000
	// JobUIDSpan is how many uids isolated jobs cycle through.
	JobUIDSpan = 100_000
	// DefaultJobRoot holds isolated jobs' working directories.
	DefaultJobRoot = "/var/tmp/idlegpu-jobs"
)

const (
	// pgidFileName, in a lease's directory, holds its job's process group id.
	pgidFileName = "pgid"
	// adoptedPoll is how often an adopted job's group is looked at: the agent
	// is not the parent of its processes and cannot wait for them.
	adoptedPoll = 500 * time.Millisecond
	// stoppingPoll is that period once Stop has signalled the group.
	stoppingPoll = 20 * time.Millisecond
	// ExitUnknown is the Status.Err of an adopted process job that ended by
	// itself: its exit status went to its parent, not to this agent.
	ExitUnknown = "exit status unknown: the job ended while the agent was not running"
)

// NewProcess returns a process runner keeping logs under dir; run by root it
// isolates jobs (see Process).
func NewProcess(dir string) (*Process, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	p := &Process{Dir: dir, Grace: 5 * time.Second, Isolated: os.Geteuid() == 0,
		UIDBase: DefaultJobUIDBase, JobRoot: DefaultJobRoot}
	if p.Isolated {
		slog.Warn("process runner: development only; each job runs as its own unprivileged user but is not confined to its GPUs")
	} else {
		slog.Warn("process runner: UNSAFE — the agent is not root, so jobs cannot run as another user: a job can read the agent's keys and state and other leases' logs, and reach every GPU")
	}
	cg, err := jobCgroupParent(dir)
	if err != nil {
		slog.Error("process runner: NO CGROUPS — a job's setsid or daemonised children survive Stop and hold its GPUs, and after a restart a job is found only by its environment, which it may clear; development only",
			"err", err)
	} else {
		p.CgroupDir = cg
		slog.Info("process runner: each job runs in its own cgroup", "parent", cg)
	}
	return p, nil
}

// jobUID is the uid and gid of a lease's isolated job.
func (p *Process) jobUID(leaseID uint64) uint32 {
	return p.UIDBase + uint32(leaseID%JobUIDSpan)
}

// jobDir makes an isolated job's working directory afresh: JobRoot (0711,
// so jobs reach their own directory but cannot list the others) and
// JobRoot/lease-N, 0700, owned by the job's user.
func (p *Process) jobDir(leaseID uint64, uid uint32) (string, error) {
	if err := os.MkdirAll(p.JobRoot, 0o711); err != nil {
		return "", err
	}
	if err := os.Chmod(p.JobRoot, 0o711); err != nil {
		return "", err
	}
	dir := filepath.Join(p.JobRoot, fmt.Sprintf("lease-%d", leaseID))
	if err := os.RemoveAll(dir); err != nil {
		return "", err
	}
	if err := os.Mkdir(dir, 0o700); err != nil {
		return "", err
	}
	if err := os.Chown(dir, int(uid), int(uid)); err != nil {
		return "", err
	}
	return dir, nil
}

// Name implements Runner.
func (p *Process) Name() string { return "process" }

func (p *Process) leaseDir(leaseID uint64) string {
	return filepath.Join(p.Dir, fmt.Sprintf("lease-%d", leaseID))
}

// Start implements Runner.
func (p *Process) Start(_ context.Context, spec Spec) (Job, error) {
	if len(spec.Command) == 0 {
		return nil, fmt.Errorf("%w: lease %d has no command", ErrInvalidSpec, spec.LeaseID)
	}
	if len(spec.GPUs) == 0 {
		return nil, fmt.Errorf("%w: lease %d has no GPUs", ErrInvalidSpec, spec.LeaseID)
	}
	if err := spec.validateGPUsAndEnv(); err != nil {
		return nil, err
	}
	dir := p.leaseDir(spec.LeaseID)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	logPath := filepath.Join(dir, "job.log")
	log, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(spec.Command[0], spec.Command[1:]...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Env = jobEnv(spec, "/tmp")
	if p.Isolated {
		uid := p.jobUID(spec.LeaseID)
		work, err := p.jobDir(spec.LeaseID, uid)
		if err != nil {
			log.Close()
			return nil, fmt.Errorf("working directory of lease %d: %w", spec.LeaseID, err)
		}
		cmd.Dir = work
		cmd.Env = jobEnv(spec, work)
		// An empty group list drops the agent's supplementary groups.
		cmd.SysProcAttr.Credential = &syscall.Credential{Uid: uid, Gid: uid, Groups: []uint32{}}
	}
	var cgDir string
	if p.CgroupDir != "" {
		var fd *os.File
		if cgDir, fd, err = createJobCgroup(p.CgroupDir, spec.LeaseID); err != nil {
			log.Close()
			return nil, fmt.Errorf("cgroup of lease %d: %w", spec.LeaseID, err)
		}
		defer fd.Close()
		cmd.SysProcAttr.UseCgroupFD, cmd.SysProcAttr.CgroupFD = true, int(fd.Fd())
	}
	if err := cmd.Start(); err != nil {
		log.Close()
		if cgDir != "" {
			_ = removeJobCgroup(cgDir)
		}
		return nil, err
	}
	pgid := cmd.Process.Pid
	procs := procsOf(pgid, cgDir)
	// Recorded before Start returns: a job this agent could not find again
	// after a crash would hold its GPUs unaccounted for, so it is not run.
	if err := writeFileAtomic(filepath.Join(dir, pgidFileName), []byte(strconv.Itoa(pgid)+"\n"), 0o600); err != nil {
		_ = procs.kill()
		_ = cmd.Wait()
		_ = procs.drain()
		log.Close()
		return nil, fmt.Errorf("record the process group of lease %d: %w", spec.LeaseID, err)
	}
	j := newProcessJob(pgid, procs, logPath, p.Grace)
	go j.waitChild(cmd, log)
	return j, nil
}

// procsOf is a job's processes: its cgroup, or without one its group.
func procsOf(leader int, cgDir string) jobProcs {
	if cgDir != "" {
		return &jobCgroup{dir: cgDir, leader: leader}
	}
	return processGroup{pgid: leader}
}

// Adopt implements Runner. With cgroups the job is the lease's cgroup while
// it holds a process: it runs while its recorded leader does, then what is
// left of it is killed. Otherwise (and for a job started without cgroups)
// the job is the process group recorded at Start; it is the lease's only
// while one of its live processes carries the lease's IDLEGPU_LEASE_ID, so a
// recycled PID is never taken for the job, and it runs while a process of
// the group does. The adopted job's exit status is unknown (it goes to its
// parent, no longer this agent).
func (p *Process) Adopt(_ context.Context, spec Spec) (Job, error) {
	dir := p.leaseDir(spec.LeaseID)
	logPath := filepath.Join(dir, "job.log")
	pgid, recErr := recordedGroup(dir, spec.LeaseID)
	if p.CgroupDir != "" {
		cg := &jobCgroup{dir: leaseCgroupDir(p.CgroupDir, spec.LeaseID), leader: pgid}
		pids, err := cg.pids()
		if err != nil {
			return nil, fmt.Errorf("lease %d: %w", spec.LeaseID, err)
		}
		if len(pids) > 0 {
			if recErr != nil && !errors.Is(recErr, ErrNotRunning) {
				return nil, recErr // unreadable, not absent: do not guess the leader
			}
			// Without a recorded leader (0) the job counts as ended: what is
			// left of it is killed.
			j := newProcessJob(pgid, cg, logPath, p.Grace)
			go j.waitGroup()
			return j, nil
		}
		_ = removeJobCgroup(cg.dir) // left empty by a job that ended
	}
	if recErr != nil {
		return nil, recErr
	}
	if !groupRunsLease(pgid, spec.LeaseID) {
		return nil, fmt.Errorf("lease %d: process group %d is gone or not the lease's: %w", spec.LeaseID, pgid, ErrNotRunning)
	}
	j := newProcessJob(pgid, processGroup{pgid: pgid}, logPath, p.Grace)
	go j.waitGroup()
	return j, nil
}

// recordedGroup reads the process group id Start recorded in a lease's
// directory (0 with an error wrapping ErrNotRunning where there is none).
func recordedGroup(dir string, leaseID uint64) (int, error) {
	b, err := os.ReadFile(filepath.Join(dir, pgidFileName))
	if errors.Is(err, fs.ErrNotExist) {
		return 0, fmt.Errorf("lease %d: no process group recorded: %w", leaseID, ErrNotRunning)
	}
	if err != nil {
		return 0, err
	}
	pgid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	// 0, 1 and negative ids would make kill(-pgid) signal far more than the job.
	if err != nil || pgid <= 1 {
		return 0, fmt.Errorf("lease %d: malformed process group id %q: %w", leaseID, b, ErrNotRunning)
	}
	return pgid, nil
}

// jobEnv is a minimal environment: PATH and HOME, then the lease's (never
// the agent's own environment, which holds secrets).
func jobEnv(spec Spec, home string) []string {
	return append([]string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + home}, spec.leaseEnv()...)
}

// jobProcs are a job's processes: its cgroup, or without cgroups its
// process group.
type jobProcs interface {
	pids() ([]int, error)
	// signal sends sig to every process; kill SIGKILLs every process.
	signal(sig syscall.Signal) error
	kill() error
	// alive tells whether an adopted job still runs.
	alive() bool
	// drain ends what is left of a job once its leader is gone.
	drain() error
}

// processJob is a job started by this agent (waitChild: wait(2) on the
// leader) or adopted from an earlier run of it (waitGroup: polling).
type processJob struct {
	logPath string
	grace   time.Duration
	// pgid is the leader's pid, also its process group's id.
	pgid  int
	procs jobProcs
	jobEnd
	// wake makes an adopted job's poll look at the group now.
	wake chan struct{}

	mu     sync.Mutex
	killed bool
}

func newProcessJob(pgid int, procs jobProcs, logPath string, grace time.Duration) *processJob {
	return &processJob{logPath: logPath, grace: grace, pgid: pgid, procs: procs,
		jobEnd: newJobEnd(), wake: make(chan struct{}, 1)}
}

// finish records the job's end and closes Done. failed says the job did not
// exit cleanly; a failed job that Stop signalled was "stopped", any other
// gets why.
func (j *processJob) finish(exitCode int, failed bool, why string) {
	end := Status{ExitCode: exitCode, Err: why}
	j.mu.Lock()
	if failed && j.killed {
		end.Err = "stopped"
	}
	j.mu.Unlock()
	j.recordEnd(end)
}

// waitChild waits for the leader, a child of this agent; the exit status is
// known.
func (j *processJob) waitChild(cmd *exec.Cmd, log *os.File) {
	err := cmd.Wait()
	log.Close()
	j.drain()
	j.finish(cmd.ProcessState.ExitCode(), err != nil, "")
}

// drain ends the job's leftover processes, loudly if some will not go.
func (j *processJob) drain() {
	if err := j.procs.drain(); err != nil {
		slog.Error("process runner: processes of an ended job are left running", "pid", j.pgid, "err", err)
	}
}

// waitGroup polls an adopted job until it ends.
func (j *processJob) waitGroup() {
	timer := time.NewTimer(adoptedPoll)
	defer timer.Stop()
	for j.procs.alive() {
		period := adoptedPoll
		if j.stopping() {
			period = stoppingPoll
		}
		timer.Reset(period)
		select {
		case <-timer.C:
		case <-j.wake:
		}
	}
	j.drain()
	j.finish(-1, true, ExitUnknown)
}

func (j *processJob) stopping() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.killed
}

// poke wakes waitGroup; a started job's waitChild does not need it.
func (j *processJob) poke() {
	select {
	case j.wake <- struct{}{}:
	default:
	}
}

// PIDs lists the job's live processes: its cgroup's, else its group's.
func (j *processJob) PIDs() []uint32 {
	select {
	case <-j.done:
		return nil
	default:
	}
	pids, err := j.procs.pids()
	if err != nil {
		return []uint32{uint32(j.pgid)}
	}
	out := make([]uint32, len(pids))
	for i, pid := range pids {
		out[i] = uint32(pid)
	}
	return out
}

// Logs opens the job's log. An adopted job's processes still hold it open and
// append to it.
func (j *processJob) Logs() (io.ReadCloser, error) { return os.Open(j.logPath) }

// Stop signals every process of the job, so children it forked end too.
func (j *processJob) Stop(ctx context.Context) error {
	select {
	case <-j.done:
		return nil
	default:
	}
	j.mu.Lock()
	j.killed = true
	j.mu.Unlock()
	if err := j.procs.signal(syscall.SIGTERM); err != nil {
		return err
	}
	j.poke()
	timer := time.NewTimer(j.grace)
	defer timer.Stop()
	select {
	case <-j.done:
	case <-timer.C:
	case <-ctx.Done():
	}
	// The leader may be gone while children linger: kill them regardless.
	if err := j.procs.kill(); err != nil {
		return err
	}
	j.poke()
	select {
	case <-j.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// writeFileAtomic replaces path with data so that a crash leaves the old or
// the new content, never a mix: a temporary file in the same directory,
// synced, then renamed over path, and the directory synced. (Like
// agent/state.WriteFileAtomic, without that package's chain dependencies.)
func writeFileAtomic(path string, data []byte, perm os.FileMode) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	defer os.Remove(name) // a no-op after the rename
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(perm)
	}
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if err := os.Rename(name, path); err != nil {
		return err
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
