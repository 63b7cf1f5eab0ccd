package runner

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/pkg/stdcopy"
)

const (
	// logDrainTimeout bounds the wait for the log stream after the container exits.
	logDrainTimeout = 10 * time.Second
	// cleanupTimeout bounds the removal and GPU check after a job exits by itself.
	cleanupTimeout = 2 * time.Minute
	// apiTimeout bounds the short API calls behind PIDs.
	apiTimeout = 5 * time.Second
)

// dockerJob is a job running in a container. A goroutine waits for the
// container to exit, records its exit, lets the log copy finish, removes the
// container and checks the GPUs' memory; Done is closed after all that.
type dockerJob struct {
	cli     DockerAPI
	id      string
	leaseID uint64
	gpus    []string
	logPath string
	grace   time.Duration
	hook    func(ctx context.Context, uuids []string) error

	ctx      context.Context
	cancel   context.CancelFunc
	done     chan struct{}
	logsDone chan struct{}

	mu       sync.Mutex
	status   Status
	stopping bool

	// cleanMu serialises cleanups; cleaned is set once the container is gone
	// and the GPUs' memory was found free.
	cleanMu sync.Mutex
	cleaned bool
}

// run copies the log stream into file and waits for the container.
func (j *dockerJob) run(stream io.ReadCloser, file *os.File) {
	go j.copyLogs(stream, file)
	go j.monitor()
}

// copyLogs demultiplexes the container's stdout and stderr into the log file.
func (j *dockerJob) copyLogs(stream io.ReadCloser, file *os.File) {
	defer close(j.logsDone)
	defer file.Close()
	defer stream.Close()
	if _, err := stdcopy.StdCopy(file, file, stream); err != nil && j.ctx.Err() == nil {
		slog.Warn("docker runner: log stream broken", "lease", j.leaseID, "err", err)
	}
}

func (j *dockerJob) monitor() {
	defer j.cancel()
	code, waitErr := j.wait()
	select {
	case <-j.logsDone:
	case <-time.After(logDrainTimeout):
		j.cancel() // ends the log stream; what was copied stays
		<-j.logsDone
	}
	j.mu.Lock()
	j.status.ExitCode = code
	switch {
	case j.stopping:
		j.status.Err = "stopped"
	case waitErr != nil:
		j.status.Err = "wait: " + waitErr.Error()
	}
	j.mu.Unlock()

	ctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
	if err := j.cleanup(ctx); err != nil {
		// Stop retries the cleanup and reports it.
		slog.Warn("docker runner: cleanup failed", "lease", j.leaseID, "container", j.id, "err", err)
	}
	cancel()
	close(j.done)
}

// wait blocks until the container is no longer running and returns its exit
// code (-1 when unknown).
func (j *dockerJob) wait() (int, error) {
	resC, errC := j.cli.ContainerWait(j.ctx, j.id, container.WaitConditionNotRunning)
	select {
	case res := <-resC:
		if res.Error != nil && res.Error.Message != "" {
			return int(res.StatusCode), fmt.Errorf("%s", res.Error.Message)
		}
		return int(res.StatusCode), nil
	case err := <-errC:
		// The wait broke (daemon restarted, container removed behind our back):
		// ask the daemon what became of the container.
		ctx, cancel := context.WithTimeout(context.Background(), apiTimeout)
		defer cancel()
		if info, ierr := j.cli.ContainerInspect(ctx, j.id); ierr == nil && info.State != nil && !info.State.Running {
			return info.State.ExitCode, nil
		}
		return -1, err
	}
}

// cleanup removes the container (again: it is idempotent) and, the first
// time it succeeds, checks that the GPUs' memory is free.
func (j *dockerJob) cleanup(ctx context.Context) error {
	j.cleanMu.Lock()
	defer j.cleanMu.Unlock()
	if err := removeContainer(ctx, j.cli, j.id); err != nil {
		return fmt.Errorf("remove container of lease %d: %w", j.leaseID, err)
	}
	if j.cleaned {
		return nil
	}
	if j.hook != nil && len(j.gpus) > 0 {
		if err := j.hook(ctx, append([]string(nil), j.gpus...)); err != nil {
			return fmt.Errorf("GPU memory after lease %d: %w", j.leaseID, err)
		}
	}
	j.cleaned = true
	return nil
}

// PIDs lists the host PIDs of the container's processes. It asks the daemon
// (ContainerTop runs `ps -eo pid` on the daemon's host and keeps the PIDs in
// the container's cgroup, so forked and daemonised processes count); if
// that fails (no ps on the host), it falls back to the container's init
// (State.Pid) and its descendants in this host's /proc, which holds when the
// agent shares the daemon's PID namespace.
func (j *dockerJob) PIDs() []uint32 {
	select {
	case <-j.done:
		return nil
	default:
	}
	ctx, cancel := context.WithTimeout(j.ctx, apiTimeout)
	defer cancel()
	top, err := j.cli.ContainerTop(ctx, j.id, []string{"-eo", "pid"})
	if err == nil {
		if pids, ok := topPIDs(top); ok {
			return pids
		}
	}
	info, err := j.cli.ContainerInspect(ctx, j.id)
	if err != nil || info.State == nil || !info.State.Running || info.State.Pid <= 0 {
		return nil
	}
	return descendants(uint32(info.State.Pid))
}

// topPIDs reads the PID column of a ContainerTop answer.
func topPIDs(top container.TopResponse) ([]uint32, bool) {
	col := -1
	for i, t := range top.Titles {
		if t == "PID" {
			col = i
		}
	}
	if col < 0 {
		return nil, false
	}
	out := make([]uint32, 0, len(top.Processes))
	for _, p := range top.Processes {
		if col >= len(p) {
			return nil, false
		}
		pid, err := strconv.ParseUint(p[col], 10, 32)
		if err != nil {
			return nil, false
		}
		out = append(out, uint32(pid))
	}
	return out, true
}

// descendants is root and every process below it, from /proc/*/stat.
func descendants(root uint32) []uint32 {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return []uint32{root}
	}
	children := map[uint32][]uint32{}
	for _, e := range entries {
		pid, err := strconv.ParseUint(e.Name(), 10, 32)
		if err != nil {
			continue
		}
		if st, ok := readProcStat(int(pid)); ok {
			children[uint32(st.ppid)] = append(children[uint32(st.ppid)], uint32(pid))
		}
	}
	out := []uint32{root}
	for i := 0; i < len(out); i++ {
		out = append(out, children[out[i]]...)
	}
	return out
}

func (j *dockerJob) Done() <-chan struct{} { return j.done }

func (j *dockerJob) Status() Status {
	j.mu.Lock()
	defer j.mu.Unlock()
	s := j.status
	select {
	case <-j.done:
	default:
		s = Status{Running: true}
	}
	return s
}

// Logs opens the copy of the job's output; it outlives the container.
func (j *dockerJob) Logs() (io.ReadCloser, error) { return os.Open(j.logPath) }

// Stop asks Docker to stop the container (SIGTERM, SIGKILL after the grace
// period), waits for the job to end, and cleans up: the container removed and
// the GPUs' memory checked free. On an ended job it only repeats the cleanup,
// so a failed removal or GPU check is retried and reported.
func (j *dockerJob) Stop(ctx context.Context) error {
	select {
	case <-j.done:
	default:
		j.mu.Lock()
		j.stopping = true
		j.mu.Unlock()
		timeout := graceSeconds(j.grace)
		if err := j.cli.ContainerStop(ctx, j.id, container.StopOptions{Timeout: &timeout}); err != nil {
			// Kill it through removal instead; the wait then ends.
			if rerr := removeContainer(ctx, j.cli, j.id); rerr != nil {
				return fmt.Errorf("stop container of lease %d: %w (remove: %v)", j.leaseID, err, rerr)
			}
		}
		select {
		case <-j.done:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return j.cleanup(ctx)
}
