package runner

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
)

// The two segments of a job's log ring. The newest output is always in
// job.log, so a reader that knows only that name still sees the tail.
const (
	logRingCurrent  = "job.log"
	logRingPrevious = "job.log.1"
)

// DefaultLogMaxBytes bounds the agent's copy of one job's output.
const DefaultLogMaxBytes = 64 << 20

// minLogMaxBytes keeps a segment large enough to hold a useful tail.
const minLogMaxBytes = 64 << 10

// logRing is a job's output on disk in at most maxBytes: two segments of
// maxBytes/2. When the current one is full it replaces the previous one
// and a new current one starts, so the oldest half is dropped at once and
// what is kept is always an exact suffix of the output. Nothing under the
// cap is dropped: the writer is the only one who decides what goes.
type logRing struct {
	mu      sync.Mutex
	dir     string
	segment int64
	cur     *os.File
	curSize int64
}

// openLogRing opens dir's ring for appending (an adopted job continues the
// segments an earlier agent wrote), creating dir.
func openLogRing(dir string, maxBytes int64) (*logRing, error) {
	if maxBytes < minLogMaxBytes {
		return nil, fmt.Errorf("log cap %d bytes is below the minimum %d", maxBytes, minLogMaxBytes)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	r := &logRing{dir: dir, segment: maxBytes / 2}
	f, err := os.OpenFile(filepath.Join(dir, logRingCurrent), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	r.cur, r.curSize = f, st.Size()
	return r, nil
}

// Write appends p, rotating as often as p needs.
func (r *logRing) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cur == nil {
		return 0, os.ErrClosed
	}
	written := 0
	for len(p) > 0 {
		if r.curSize >= r.segment {
			if err := r.rotate(); err != nil {
				return written, err
			}
		}
		n := int(min(int64(len(p)), r.segment-r.curSize))
		m, err := r.cur.Write(p[:n])
		written += m
		r.curSize += int64(m)
		if err != nil {
			return written, err
		}
		p = p[n:]
	}
	return written, nil
}

// rotate makes the full current segment the previous one (dropping the
// old previous) and starts an empty current one. The caller holds mu.
func (r *logRing) rotate() error {
	if err := r.cur.Close(); err != nil {
		return err
	}
	r.cur = nil
	cur, prev := filepath.Join(r.dir, logRingCurrent), filepath.Join(r.dir, logRingPrevious)
	if err := os.Rename(cur, prev); err != nil {
		return err
	}
	f, err := os.OpenFile(cur, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	r.cur, r.curSize = f, 0
	return nil
}

// Close closes the current segment.
func (r *logRing) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cur == nil {
		return nil
	}
	err := r.cur.Close()
	r.cur = nil
	return err
}

// open reads the ring in order; holding mu keeps a rotation from moving
// the segments between the two opens.
func (r *logRing) open() (io.ReadCloser, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return OpenJobLog(r.dir)
}

// OpenJobLog reads the log ring a docker job left in dir (the lease's
// directory under the runner's work dir): the previous segment, then the
// current one. os.ErrNotExist when the job left none.
func OpenJobLog(dir string) (io.ReadCloser, error) {
	var files []*os.File
	for _, name := range []string{logRingPrevious, logRingCurrent} {
		f, err := os.Open(filepath.Join(dir, name))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			for _, f := range files {
				f.Close()
			}
			return nil, err
		}
		files = append(files, f)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no job log in %s: %w", dir, os.ErrNotExist)
	}
	readers := make([]io.Reader, len(files))
	for i, f := range files {
		readers[i] = f
	}
	return multiFile{Reader: io.MultiReader(readers...), files: files}, nil
}

// multiFile reads files one after the other and closes them all.
type multiFile struct {
	io.Reader
	files []*os.File
}

func (m multiFile) Close() error {
	var errs []error
	for _, f := range m.files {
		errs = append(errs, f.Close())
	}
	return errors.Join(errs...)
}
