package state

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	settlementtypes "github.com/idlegpu/idlegpu/x/settlement/types"
)

// A sample log is a file of records, each
//
//	uint32be length ‖ canonical sample encoding (x/settlement) ‖ uint32be CRC-32C of the encoding
//
// appended and fsynced per batch. A crash can tear only the last record;
// Open drops a torn tail, so what was synced is never lost.

// maxRecord bounds one record's encoding (a sample is < 200 bytes).
const maxRecord = 4096

// ErrSampleLogBroken: a failed append could not be cut back to the last
// complete record; nothing more is appended until it can.
var ErrSampleLogBroken = errors.New("sample log: a failed append is not cut back yet")

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// SampleLog is an open sample log.
type SampleLog struct {
	f       logFile
	path    string
	samples []settlementtypes.Sample
	// off is the end of the last complete record: a failed append is cut
	// back to it, so a torn record never sits before a later good one
	// (Open would stop at the torn one and lose what follows).
	off int64
	// torn is set while a failed append could not be cut back.
	torn error
}

// OpenSampleLog opens (creating if needed) the log at path, reads every
// complete record and truncates a torn tail.
func OpenSampleLog(path string) (*SampleLog, error) {
	return openSampleLog(path, nil)
}

// logFile is what a SampleLog needs of its file: *os.File, or in tests a
// file whose disk fills up.
type logFile interface {
	io.ReadWriter
	io.Seeker
	Truncate(size int64) error
	Sync() error
	Close() error
}

func openSampleLog(path string, wrap func(*os.File) logFile) (*SampleLog, error) {
	osf, err := os.OpenFile(path, os.O_RDWR, 0)
	if errors.Is(err, fs.ErrNotExist) {
		// A new file is durable only once its directory entry is.
		if osf, err = os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600); err == nil {
			if err = syncDir(filepath.Dir(path)); err != nil {
				osf.Close()
			}
		}
	}
	if err != nil {
		return nil, err
	}
	var f logFile = osf
	if wrap != nil {
		f = wrap(osf)
	}
	samples, good, err := readRecords(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := f.Truncate(good); err != nil {
		f.Close()
		return nil, err
	}
	if _, err := f.Seek(good, io.SeekStart); err != nil {
		f.Close()
		return nil, err
	}
	return &SampleLog{f: f, path: path, samples: samples, off: good}, nil
}

// readRecords returns the complete records and the offset after the last.
func readRecords(r io.Reader) ([]settlementtypes.Sample, int64, error) {
	br := bufio.NewReader(r)
	var out []settlementtypes.Sample
	var off int64
	for {
		var hdr [4]byte
		if _, err := io.ReadFull(br, hdr[:]); err != nil {
			return out, off, nil // clean end or torn header
		}
		n := binary.BigEndian.Uint32(hdr[:])
		if n == 0 || n > maxRecord {
			return out, off, nil // garbage where a header should be: a torn tail
		}
		body := make([]byte, n+4)
		if _, err := io.ReadFull(br, body); err != nil {
			return out, off, nil
		}
		enc, sum := body[:n], binary.BigEndian.Uint32(body[n:])
		if crc32.Checksum(enc, crcTable) != sum {
			return out, off, nil
		}
		s, err := settlementtypes.DecodeSample(enc)
		if err != nil {
			// A record that passed its checksum but does not decode was
			// written by another format: refuse rather than drop data.
			return nil, 0, fmt.Errorf("record at %d: %w", off, err)
		}
		out = append(out, s)
		off += int64(4 + n + 4)
	}
}

// Append writes samples as one batch and fsyncs: when it returns nil they
// survive a crash. When it fails (a full disk), the batch is cut off again;
// if that cut fails too, the error wraps ErrSampleLogBroken and every later
// Append retries the cut before writing.
func (l *SampleLog) Append(samples ...settlementtypes.Sample) error {
	var buf []byte
	for _, s := range samples {
		enc, err := settlementtypes.EncodeSample(s)
		if err != nil {
			return err
		}
		buf = binary.BigEndian.AppendUint32(buf, uint32(len(enc)))
		buf = append(buf, enc...)
		buf = binary.BigEndian.AppendUint32(buf, crc32.Checksum(enc, crcTable))
	}
	if l.torn != nil {
		if err := l.cutBack(); err != nil {
			return err
		}
	}
	n, err := l.f.Write(buf)
	if err == nil && n != len(buf) {
		err = io.ErrShortWrite
	}
	if err == nil {
		// After a failed fsync the file's content is unknown: cut back too.
		err = l.f.Sync()
	}
	if err != nil {
		l.torn = err
		return errors.Join(err, l.cutBack())
	}
	l.off += int64(len(buf))
	l.samples = append(l.samples, samples...)
	return nil
}

// cutBack truncates the log to the last complete record and clears torn;
// while it fails, it returns ErrSampleLogBroken with the cause.
func (l *SampleLog) cutBack() error {
	err := l.f.Truncate(l.off)
	if err == nil {
		_, err = l.f.Seek(l.off, io.SeekStart)
	}
	if err == nil {
		err = l.f.Sync()
	}
	if err != nil {
		return fmt.Errorf("%w: %s at %d: %w (after %w)", ErrSampleLogBroken, l.path, l.off, err, l.torn)
	}
	l.torn = nil
	return nil
}

// Samples returns the samples logged so far, in append order.
func (l *SampleLog) Samples() []settlementtypes.Sample {
	return append([]settlementtypes.Sample(nil), l.samples...)
}

// Close closes the file.
func (l *SampleLog) Close() error { return l.f.Close() }

// Remove closes and deletes the log (its epoch is settled and past retention).
func (l *SampleLog) Remove() error {
	return errors.Join(l.f.Close(), os.Remove(l.path))
}
