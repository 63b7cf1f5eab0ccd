package runner

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// DefaultDiskCheckInterval is how often a job's disk use is measured.
const DefaultDiskCheckInterval = 5 * time.Second

// diskWatch bounds what a job writes where the storage driver cannot
// (overlay2 on ext4 ignores a container's size): its writable host
// directories and, when its root filesystem is writable, the container's
// writable layer, measured every interval. A job over the limit is killed
// at once: every second of grace lets it write more.
type diskWatch struct {
	dirs []string
	// rootfs adds the container's writable layer (SizeRw).
	rootfs   bool
	limit    int64
	interval time.Duration
}

// watch measures until the container exits, killing the job once over the
// limit.
func (j *dockerJob) watchDisk(w diskWatch) {
	t := time.NewTicker(w.interval)
	defer t.Stop()
	for {
		select {
		case <-j.ctx.Done():
			return
		case <-j.exited:
			return
		case <-t.C:
		}
		used, err := j.diskUsage(w)
		if err != nil {
			if j.ctx.Err() == nil && !isClosed(j.exited) {
				slog.Warn("docker runner: cannot measure a job's disk use", "lease", j.leaseID, "err", err)
			}
			continue
		}
		if used > w.limit {
			j.kill(fmt.Sprintf("disk limit exceeded: %d > %d bytes", used, w.limit))
			return
		}
	}
}

// diskUsage is the bytes the job has written under w's directories and
// writable layer.
func (j *dockerJob) diskUsage(w diskWatch) (int64, error) {
	var total int64
	for _, dir := range w.dirs {
		n, err := dirUsage(dir)
		if err != nil {
			return 0, err
		}
		total += n
	}
	if w.rootfs {
		ctx, cancel := context.WithTimeout(j.ctx, apiTimeout)
		defer cancel()
		info, _, err := j.cli.ContainerInspectWithRaw(ctx, j.id, true)
		if err != nil {
			return 0, err
		}
		if info.SizeRw != nil {
			total += *info.SizeRw
		}
	}
	return total, nil
}

// dirUsage is the disk space the files under root take (allocated blocks,
// so a sparse file counts what it holds and a hard link counts once).
// Entries that vanish while it walks are skipped: the job is writing.
func dirUsage(root string) (int64, error) {
	var total int64
	seen := map[uint64]bool{}
	err := filepath.WalkDir(root, func(path string, _ fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && path != root {
				return nil
			}
			return err
		}
		st, err := os.Lstat(path)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		sys, ok := st.Sys().(*syscall.Stat_t)
		if !ok {
			total += st.Size()
			return nil
		}
		if sys.Nlink > 1 && !st.IsDir() {
			if seen[sys.Ino] {
				return nil
			}
			seen[sys.Ino] = true
		}
		total += sys.Blocks * 512
		return nil
	})
	return total, err
}

// isClosed reports whether ch is closed.
func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
