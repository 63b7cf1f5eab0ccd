package endpoint

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
)

// A job's log is served in chunks: a whole log can be gigabytes, and one
// request must stay cheap and bounded.
const (
	// DefaultLogBytes is the chunk served when the request names no size:
	// the log's last DefaultLogBytes.
	DefaultLogBytes = 1 << 20
	// MaxLogBytes bounds tail and limit.
	MaxLogBytes = 8 << 20
)

// Response headers placing a log chunk in the whole log.
const (
	HeaderLogOffset = "X-Idlegpu-Log-Offset" // offset of the chunk's first byte
	HeaderLogSize   = "X-Idlegpu-Log-Size"   // the log's size when it was read
)

// LogRange selects part of a job's log: with Tail > 0 its last Tail bytes;
// else with Offset or Limit set, at most Limit bytes (0: DefaultLogBytes)
// from Offset; else the last DefaultLogBytes.
type LogRange struct {
	Offset, Limit, Tail int64
}

// LogChunk is a part of a job's log and its place in it.
type LogChunk struct {
	Data   []byte
	Offset int64 // of Data's first byte
	Size   int64 // the whole log's size when read
}

func (lr LogRange) query() string {
	switch {
	case lr.Tail > 0:
		return fmt.Sprintf("?tail=%d", lr.Tail)
	case lr.Offset > 0 || lr.Limit > 0:
		return fmt.Sprintf("?offset=%d&limit=%d", lr.Offset, lr.Limit)
	}
	return ""
}

// errLogRange is a malformed range in a logs request.
var errLogRange = errors.New("log range")

func parseLogRange(r *http.Request) (fromOffset bool, offset, n int64, err error) {
	q := r.URL.Query()
	num := func(name string) (int64, error) {
		s := q.Get(name)
		if s == "" {
			return 0, nil
		}
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil || v < 0 {
			return 0, fmt.Errorf("%w: %s=%q", errLogRange, name, s)
		}
		if name != "offset" && v > MaxLogBytes {
			return 0, fmt.Errorf("%w: %s above %d bytes", errLogRange, name, MaxLogBytes)
		}
		return v, nil
	}
	tail, err := num("tail")
	if err != nil {
		return false, 0, 0, err
	}
	if offset, err = num("offset"); err != nil {
		return false, 0, 0, err
	}
	limit, err := num("limit")
	if err != nil {
		return false, 0, 0, err
	}
	fromOffset = q.Has("offset") || q.Has("limit")
	if q.Has("tail") && fromOffset {
		return false, 0, 0, fmt.Errorf("%w: tail or offset and limit, not both", errLogRange)
	}
	n = DefaultLogBytes
	if fromOffset && limit > 0 {
		n = limit
	} else if !fromOffset && tail > 0 {
		n = tail
	}
	return fromOffset, offset, n, nil
}

// readLogChunk reads the chunk from rc: by seeking when it is a file, by
// reading through when it is a stream.
func readLogChunk(rc io.Reader, fromOffset bool, offset, n int64) (LogChunk, error) {
	if sk, ok := rc.(io.ReadSeeker); ok {
		size, err := sk.Seek(0, io.SeekEnd)
		if err != nil {
			return LogChunk{}, err
		}
		start := max(size-n, 0)
		if fromOffset {
			start = min(offset, size)
		}
		if _, err := sk.Seek(start, io.SeekStart); err != nil {
			return LogChunk{}, err
		}
		data, err := io.ReadAll(io.LimitReader(sk, min(n, size-start)))
		return LogChunk{Data: data, Offset: start, Size: size}, err
	}
	if fromOffset {
		skipped, err := io.CopyN(io.Discard, rc, offset)
		if err != nil && err != io.EOF {
			return LogChunk{}, err
		}
		data, err := io.ReadAll(io.LimitReader(rc, n))
		if err != nil {
			return LogChunk{}, err
		}
		rest, err := io.Copy(io.Discard, rc)
		return LogChunk{Data: data, Offset: skipped, Size: skipped + int64(len(data)) + rest}, err
	}
	// The last n bytes of a stream: keep at most 2n in memory.
	var keep []byte
	var size int64
	buf := make([]byte, 64<<10)
	for {
		k, err := rc.Read(buf)
		keep = append(keep, buf[:k]...)
		size += int64(k)
		if int64(len(keep)) > 2*n {
			keep = bytes.Clone(keep[int64(len(keep))-n:])
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return LogChunk{}, err
		}
	}
	if int64(len(keep)) > n {
		keep = keep[int64(len(keep))-n:]
	}
	return LogChunk{Data: keep, Offset: size - int64(len(keep)), Size: size}, nil
}

func (s *Server) logs(w http.ResponseWriter, r *http.Request, l Lease, _ []byte) {
	fromOffset, offset, n, err := parseLogRange(r)
	if err != nil {
		httpError(w, http.StatusBadRequest, "%v", err)
		return
	}
	rc, err := s.jobs.Logs(l.ID)
	if err != nil {
		httpError(w, http.StatusNotFound, "no logs of lease %d", l.ID)
		return
	}
	defer rc.Close()
	chunk, err := readLogChunk(rc, fromOffset, offset, n)
	if err != nil {
		s.log.Warn("endpoint: reading a job log", "lease", l.ID, "err", err)
		httpError(w, http.StatusInternalServerError, "reading the log failed")
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set(HeaderLogOffset, strconv.FormatInt(chunk.Offset, 10))
	w.Header().Set(HeaderLogSize, strconv.FormatInt(chunk.Size, 10))
	w.Header().Set("Content-Length", strconv.Itoa(len(chunk.Data)))
	_, _ = w.Write(chunk.Data)
}
