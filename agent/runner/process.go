package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// Process runs a job as a local command in its own process group, with the
// leased GPUs in CUDA_VISIBLE_DEVICES / NVIDIA_VISIBLE_DEVICES. It is meant
// for tests and the demo: the job runs with the agent's rights.
type Process struct {
	// Dir holds one directory per lease with the job's log.
	Dir string
	// Grace is how long Stop waits after SIGTERM before SIGKILL.
	Grace time.Duration
}

// NewProcess returns a process runner keeping logs under dir.
func NewProcess(dir string) (*Process, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	return &Process{Dir: dir, Grace: 5 * time.Second}, nil
}

// Name implements Runner.
func (p *Process) Name() string { return "process" }

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
	dir := filepath.Join(p.Dir, fmt.Sprintf("lease-%d", spec.LeaseID))
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
	cmd.Env = jobEnv(spec)
	if err := cmd.Start(); err != nil {
		log.Close()
		return nil, err
	}
	j := &processJob{cmd: cmd, log: log, logPath: logPath, grace: p.Grace, done: make(chan struct{}), pgid: cmd.Process.Pid}
	go j.wait()
	return j, nil
}

// jobEnv is a minimal environment: PATH and HOME, then the lease's (never
// the agent's own environment, which holds secrets).
func jobEnv(spec Spec) []string {
	return append([]string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/tmp"}, spec.leaseEnv()...)
}

type processJob struct {
	cmd     *exec.Cmd
	log     *os.File
	logPath string
	grace   time.Duration
	pgid    int
	done    chan struct{}

	mu     sync.Mutex
	status Status
	killed bool
}

func (j *processJob) wait() {
	err := j.cmd.Wait()
	j.mu.Lock()
	j.status.ExitCode = j.cmd.ProcessState.ExitCode()
	if err != nil && j.killed {
		j.status.Err = "stopped"
	}
	j.mu.Unlock()
	j.log.Close()
	close(j.done)
}

// PIDs lists the processes of the job's process group (Linux /proc).
func (j *processJob) PIDs() []uint32 {
	select {
	case <-j.done:
		return nil
	default:
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return []uint32{uint32(j.pgid)}
	}
	var out []uint32
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if pg, err := syscall.Getpgid(pid); err == nil && pg == j.pgid {
			out = append(out, uint32(pid))
		}
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
	select {
	case <-j.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
