package runner

import (
	"bytes"
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
// The group outlives the agent: Start records its id in Dir/lease-N/pgid, and
// a restarted agent's Adopt finds the job again from there.
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
	if err := cmd.Start(); err != nil {
		log.Close()
		return nil, err
	}
	pgid := cmd.Process.Pid
	// Recorded before Start returns: a job this agent could not find again
	// after a crash would hold its GPUs unaccounted for, so it is not run.
	if err := writeFileAtomic(filepath.Join(dir, pgidFileName), []byte(strconv.Itoa(pgid)+"\n"), 0o600); err != nil {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		_ = cmd.Wait()
		log.Close()
		return nil, fmt.Errorf("record the process group of lease %d: %w", spec.LeaseID, err)
	}
	j := newProcessJob(pgid, logPath, p.Grace)
	go j.waitChild(cmd, log)
	return j, nil
}

// Adopt implements Runner. The job is the process group recorded at Start;
// it is the lease's only while one of its live processes carries the lease's
// IDLEGPU_LEASE_ID, so a recycled PID is never taken for the job. The
// adopted job's exit status is unknown (it goes to its parent, no longer this
// agent): Done is closed once no process of the group is left.
func (p *Process) Adopt(_ context.Context, spec Spec) (Job, error) {
	dir := p.leaseDir(spec.LeaseID)
	b, err := os.ReadFile(filepath.Join(dir, pgidFileName))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("lease %d: no process group recorded: %w", spec.LeaseID, ErrNotRunning)
	}
	if err != nil {
		return nil, err
	}
	pgid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	// 0, 1 and negative ids would make kill(-pgid) signal far more than the job.
	if err != nil || pgid <= 1 {
		return nil, fmt.Errorf("lease %d: malformed process group id %q: %w", spec.LeaseID, b, ErrNotRunning)
	}
	if !groupRunsLease(pgid, spec.LeaseID) {
		return nil, fmt.Errorf("lease %d: process group %d is gone or not the lease's: %w", spec.LeaseID, pgid, ErrNotRunning)
	}
	j := newProcessJob(pgid, filepath.Join(dir, "job.log"), p.Grace)
	go j.waitGroup()
	return j, nil
}

// jobEnv is a minimal environment: PATH and HOME, then the lease's (never
// the agent's own environment, which holds secrets).
func jobEnv(spec Spec, home string) []string {
	return append([]string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + home}, spec.leaseEnv()...)
}

// processJob is a job in its own process group, started by this agent
// (waitChild: wait(2) on the leader) or adopted from an earlier run of it
// (waitGroup: polling the group in /proc).
type processJob struct {
	logPath string
	grace   time.Duration
	pgid    int
	done    chan struct{}
	// wake makes an adopted job's poll look at the group now.
	wake chan struct{}

	mu     sync.Mutex
	status Status
	killed bool
}

func newProcessJob(pgid int, logPath string, grace time.Duration) *processJob {
	return &processJob{logPath: logPath, grace: grace, pgid: pgid,
		done: make(chan struct{}), wake: make(chan struct{}, 1)}
}

// finish records the job's end and closes Done. failed says the job did not
// exit cleanly; a failed job that Stop signalled was "stopped", any other
// gets why.
func (j *processJob) finish(exitCode int, failed bool, why string) {
	j.mu.Lock()
	j.status.ExitCode = exitCode
	if failed && j.killed {
		j.status.Err = "stopped"
	} else {
		j.status.Err = why
	}
	j.mu.Unlock()
	close(j.done)
}

// waitChild waits for the leader, a child of this agent; the exit status is
// known.
func (j *processJob) waitChild(cmd *exec.Cmd, log *os.File) {
	err := cmd.Wait()
	log.Close()
	j.finish(cmd.ProcessState.ExitCode(), err != nil, "")
}

// waitGroup polls an adopted job's group until none of its processes is left.
func (j *processJob) waitGroup() {
	timer := time.NewTimer(adoptedPoll)
	defer timer.Stop()
	for groupAlive(j.pgid) {
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

// PIDs lists the live processes of the job's process group (Linux /proc).
func (j *processJob) PIDs() []uint32 {
	select {
	case <-j.done:
		return nil
	default:
	}
	pids, err := groupMembers(j.pgid)
	if err != nil {
		return []uint32{uint32(j.pgid)}
	}
	out := make([]uint32, len(pids))
	for i, pid := range pids {
		out[i] = uint32(pid)
	}
	return out
}

func (j *processJob) Done() <-chan struct{} { return j.done }

func (j *processJob) Status() Status {
	j.mu.Lock()
	defer j.mu.Unlock()
	s := j.status
	select {
	case <-j.done:
	default:
		s.Running = true
	}
	return s
}

// Logs opens the job's log. An adopted job's processes still hold it open and
// append to it.
func (j *processJob) Logs() (io.ReadCloser, error) { return os.Open(j.logPath) }

// Stop signals the whole process group, so children the job forked end too.
func (j *processJob) Stop(ctx context.Context) error {
	select {
	case <-j.done:
		return nil
	default:
	}
	j.mu.Lock()
	j.killed = true
	j.mu.Unlock()
	if err := syscall.Kill(-j.pgid, syscall.SIGTERM); err != nil && !errors.Is(err, syscall.ESRCH) {
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
	// The leader may be gone while children linger: kill the group regardless.
	if err := syscall.Kill(-j.pgid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
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

// procStat is what the runners read from /proc/PID/stat.
type procStat struct {
	state byte // R, S, D, Z (zombie), X (dead), …
	ppid  int
	pgrp  int
}

// live is false for a process that has exited but was not reaped yet.
func (s procStat) live() bool { return s.state != 'Z' && s.state != 'X' }

// readProcStat reads the state, parent and process group of a process. The
// command name, in parentheses, may itself hold spaces and parentheses: the
// fields are read after the last ')'.
func readProcStat(pid int) (procStat, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, false
	}
	end := bytes.LastIndexByte(b, ')')
	if end < 0 {
		return procStat{}, false
	}
	f := strings.Fields(string(b[end+1:]))
	if len(f) < 3 || len(f[0]) != 1 {
		return procStat{}, false
	}
	ppid, err1 := strconv.Atoi(f[1])
	pgrp, err2 := strconv.Atoi(f[2])
	if err1 != nil || err2 != nil {
		return procStat{}, false
	}
	return procStat{state: f[0][0], ppid: ppid, pgrp: pgrp}, true
}

// groupMembers lists the live (not zombie) processes of a process group.
func groupMembers(pgid int) ([]int, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, ok := readProcStat(pid); ok && st.pgrp == pgid && st.live() {
			out = append(out, pid)
		}
	}
	return out, nil
}

// groupAlive tells whether a live process is left in the group: the leader,
// else any member. A /proc it cannot read counts as alive, so a job is never
// declared ended on a read error.
func groupAlive(pgid int) bool {
	if st, ok := readProcStat(pgid); ok && st.pgrp == pgid && st.live() {
		return true
	}
	pids, err := groupMembers(pgid)
	return err != nil || len(pids) > 0
}

// groupRunsLease tells whether a live process of the group carries the
// lease's IDLEGPU_LEASE_ID: the leader first, else any other member (the
// leader may have exited while its children run on).
func groupRunsLease(pgid int, leaseID uint64) bool {
	entry := "IDLEGPU_LEASE_ID=" + strconv.FormatUint(leaseID, 10)
	if st, ok := readProcStat(pgid); ok && st.pgrp == pgid && st.live() && hasEnv(pgid, entry) {
		return true
	}
	pids, _ := groupMembers(pgid)
	for _, pid := range pids {
		if pid != pgid && hasEnv(pid, entry) {
			return true
		}
	}
	return false
}

// hasEnv tells whether a process's initial environment holds entry exactly.
func hasEnv(pid int, entry string) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false
	}
	for _, kv := range bytes.Split(b, []byte{0}) {
		if string(kv) == entry {
			return true
		}
	}
	return false
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
