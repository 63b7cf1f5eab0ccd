package runner

import (
	"context"
	"errors"
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
// container and its scratch and checks the GPUs' memory; Done is closed
// after all that.
type dockerJob struct {
	cli     DockerAPI
	id      string
	leaseID uint64
	gpus    []string
	// ring receives the output (nil for a job only cleaned up); logDir
	// holds it; scratch is the host side of /scratch.
	ring    *logRing
	logDir  string
	scratch string
	grace   time.Duration
	hook    func(ctx context.Context, uuids []string) error

	ctx    context.Context
	cancel context.CancelFunc
	jobEnd
	logsDone chan struct{}
	// exited is closed once the container has stopped running: the disk
	// watchdog ends there, before the cleanup removes what it measures.
	exited chan struct{}

	mu sync.Mutex
	// stopping is set once the job is being stopped; stopReason is its
	// Status.Err ("stopped", or why the runner killed it).
	stopping   bool
	stopReason string

	// cleanMu serialises cleanups; cleaned is set once the container and
	// scratch are gone and the GPUs' memory was found free.
	cleanMu     sync.Mutex
	scratchGone bool
	cleaned     bool
}

// run copies the output stream into the log ring, watches the disk (w may
// be nil) and waits for the container.
func (j *dockerJob) run(stream io.ReadCloser, w *diskWatch) {
	// Cancelling the job ends the stream: an attach connection does not
	// watch the context it was opened with.
	context.AfterFunc(j.ctx, func() { stream.Close() })
	go j.copyLogs(stream)
	if w != nil {
		go j.watchDisk(*w)
	}
	go j.monitor()
}

// copyLogs demultiplexes the container's stdout and stderr into the ring.
func (j *dockerJob) copyLogs(stream io.ReadCloser) {
	defer close(j.logsDone)
	defer j.ring.Close()
	defer stream.Close()
	out := &drainWriter{w: j.ring, leaseID: j.leaseID}
	if _, err := stdcopy.StdCopy(out, out, stream); err != nil && j.ctx.Err() == nil {
		slog.Warn("docker runner: output stream broken", "lease", j.leaseID, "err", err)
	}
}

// drainWriter writes to w until it fails, then discards: the stream must
// be read to its end whatever the disk does, or the job blocks on its
// next write.
type drainWriter struct {
	w       io.Writer
	leaseID uint64
	failed  bool
}

func (d *drainWriter) Write(p []byte) (int, error) {
	if !d.failed {
		if _, err := d.w.Write(p); err != nil {
			d.failed = true
			slog.Warn("docker runner: cannot keep a job's output; the rest is dropped", "lease", d.leaseID, "err", err)
		}
	}
	return len(p), nil
}

func (j *dockerJob) monitor() {
	defer j.cancel()
	code, waitErr := j.wait()
	close(j.exited)
	select {
	case <-j.logsDone:
	case <-time.After(logDrainTimeout):
		j.cancel() // ends the log stream; what was copied stays
		<-j.logsDone
	}
	end := Status{ExitCode: code, Exited: code >= 0}
	j.mu.Lock()
	switch {
	case j.stopping:
		end.Err = j.stopReason
	case waitErr != nil:
		end.Err = "wait: " + waitErr.Error()
	}
	j.mu.Unlock()

	ctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
	if err := j.cleanup(ctx); err != nil {
		// Stop retries the cleanup and reports it.
		slog.Warn("docker runner: cleanup failed", "lease", j.leaseID, "container", j.id, "err", err)
	}
	cancel()
	j.recordEnd(end)
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

// cleanup removes the container (again: it is idempotent), then its
// scratch, and, the first time both succeed, checks that the GPUs' memory
// is free.
func (j *dockerJob) cleanup(ctx context.Context) error {
	j.cleanMu.Lock()
	defer j.cleanMu.Unlock()
	if err := removeContainer(ctx, j.cli, j.id); err != nil {
		return fmt.Errorf("remove container of lease %d: %w", j.leaseID, err)
	}
	if j.cleaned {
		return nil
	}
	if !j.scratchGone {
		if err := os.RemoveAll(j.scratch); err != nil {
			return fmt.Errorf("remove scratch of lease %d: %w", j.leaseID, err)
		}
		j.scratchGone = true
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

// Logs opens the job's log ring, oldest output first; it outlives the container.
func (j *dockerJob) Logs() (io.ReadCloser, error) {
	if j.ring != nil {
		return j.ring.open()
	}
	return OpenJobLog(j.logDir)
}

// Stop asks Docker to stop the container (SIGTERM, SIGKILL after the grace
// period), waits for the job to end, and cleans up: the container removed and
// the GPUs' memory checked free. On an ended job it only repeats the cleanup,
// so a failed removal or GPU check is retried and reported.
func (j *dockerJob) Stop(ctx context.Context) error {
	select {
	case <-j.done:
	default:
		j.mu.Lock()
		if !j.stopping {
			j.stopping, j.stopReason = true, "stopped"
		}
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

// kill stops the job at once (no grace period) for a reason its Status
// then gives; the monitor cleans up as after any exit.
func (j *dockerJob) kill(reason string) {
	j.mu.Lock()
	if j.stopping {
		j.mu.Unlock()
		return
	}
	j.stopping, j.stopReason = true, reason
	j.mu.Unlock()
	slog.Warn("docker runner: killing a job", "lease", j.leaseID, "why", reason)
	ctx, cancel := context.WithTimeout(j.ctx, cleanupTimeout)
	defer cancel()
	now := 0
	if err := j.cli.ContainerStop(ctx, j.id, container.StopOptions{Timeout: &now}); err != nil {
		if rerr := removeContainer(ctx, j.cli, j.id); rerr != nil {
			slog.Warn("docker runner: cannot kill a job", "lease", j.leaseID, "err", errors.Join(err, rerr))
		}
	}
}
