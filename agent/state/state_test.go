package state

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	settlementtypes "github.com/idlegpu/idlegpu/x/settlement/types"
)

func sample(i int) settlementtypes.Sample {
	return settlementtypes.Sample{GpuUuid: "GPU-1", TimestampMs: int64(1_000 * i), UtilBps: 9000, MemUsedMib: 100,
		EnergyMj: uint64(1_000_000 + i), PowerMw: 400_000, TempC: 60, SmClockMhz: 1980, Procs: 1}
}

func TestJSONRoundTripAndAtomicReplace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "leases.json")
	var v map[string]int
	found, err := LoadJSON(path, &v)
	require.NoError(t, err)
	require.False(t, found)

	require.NoError(t, SaveJSON(path, map[string]int{"a": 1}))
	require.NoError(t, SaveJSON(path, map[string]int{"a": 2, "b": 3}))
	found, err = LoadJSON(path, &v)
	require.NoError(t, err)
	require.True(t, found)
	require.Equal(t, map[string]int{"a": 2, "b": 3}, v)
	info, err := os.Stat(path)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), info.Mode().Perm())
	entries, err := os.ReadDir(filepath.Dir(path))
	require.NoError(t, err)
	require.Len(t, entries, 1, "no temporary file is left behind")

	require.NoError(t, os.WriteFile(path, []byte("{"), 0o600))
	_, err = LoadJSON(path, &v)
	require.ErrorContains(t, err, "leases.json")
}

// TestSampleLogSurvivesATornTail: a crash in the middle of a write loses
// only the record being written; the log reopens with every complete one
// and appends after them.
func TestSampleLogSurvivesATornTail(t *testing.T) {
	path := filepath.Join(t.TempDir(), "1-0.log")
	l, err := OpenSampleLog(path)
	require.NoError(t, err)
	require.NoError(t, l.Append(sample(1), sample(2)))
	require.NoError(t, l.Append(sample(3)))
	require.NoError(t, l.Close())
	full, err := os.ReadFile(path)
	require.NoError(t, err)

	for cut := len(full) - 1; cut > 0; cut -= 7 {
		require.NoError(t, os.WriteFile(path, full[:cut], 0o600))
		l, err := OpenSampleLog(path)
		require.NoError(t, err)
		got := l.Samples()
		require.Less(t, len(got), 3, "cut at %d", cut)
		for i, s := range got {
			require.Equal(t, sample(i+1), s)
		}
		require.NoError(t, l.Append(sample(9)))
		require.NoError(t, l.Close())
		again, err := OpenSampleLog(path)
		require.NoError(t, err)
		require.Equal(t, append(got, sample(9)), again.Samples(), "the append follows the last complete record")
		require.NoError(t, again.Close())
	}
}

func TestSampleLogRejectsCorruptionInTheMiddle(t *testing.T) {
	path := filepath.Join(t.TempDir(), "1-0.log")
	l, err := OpenSampleLog(path)
	require.NoError(t, err)
	require.NoError(t, l.Append(sample(1), sample(2), sample(3)))
	require.NoError(t, l.Close())
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	b[10] ^= 0xff // inside the first record: its checksum fails
	require.NoError(t, os.WriteFile(path, b, 0o600))
	l, err = OpenSampleLog(path)
	require.NoError(t, err)
	require.Empty(t, l.Samples(), "nothing after a bad record is trusted")
	require.NoError(t, l.Remove())
	_, err = os.Stat(path)
	require.True(t, os.IsNotExist(err))
}

// failingFile is the log's real file with a disk that fills up: a write
// lands only its first room bytes and then fails, as ENOSPC does; truncate
// can be made to fail too.
type failingFile struct {
	*os.File
	room         int  // bytes the next write may still land; < 0: unlimited
	failTruncate bool // Truncate fails
}

var errDiskFull = errors.New("no space left on device")

func (f *failingFile) Write(b []byte) (int, error) {
	if f.room < 0 || len(b) <= f.room {
		if f.room >= 0 {
			f.room -= len(b)
		}
		return f.File.Write(b)
	}
	n, err := f.File.Write(b[:f.room])
	f.room = 0
	if err != nil {
		return n, err
	}
	return n, errDiskFull
}

func (f *failingFile) Truncate(size int64) error {
	if f.failTruncate {
		return errDiskFull
	}
	return f.File.Truncate(size)
}

// TestSampleLogFailedAppendLeavesNoTornRecord: a partial write on a full
// disk is cut back to the last good record, so a later append that reports
// success is still there after a restart; while the cut itself fails, the
// log refuses appends instead of writing after a torn record.
func TestSampleLogFailedAppendLeavesNoTornRecord(t *testing.T) {
	path := filepath.Join(t.TempDir(), "1-0.log")
	var ff *failingFile
	l, err := openSampleLog(path, func(f *os.File) logFile {
		ff = &failingFile{File: f, room: -1}
		return ff
	})
	require.NoError(t, err)
	require.NoError(t, l.Append(sample(1)))

	ff.room, ff.failTruncate = 10, true // the disk fills mid-record and the cut fails too
	require.ErrorIs(t, l.Append(sample(2)), errDiskFull)
	ff.room = -1 // space is back, the cut still fails
	err = l.Append(sample(3))
	require.ErrorIs(t, err, ErrSampleLogBroken)
	require.ErrorIs(t, err, errDiskFull)

	ff.failTruncate = false // the next append repairs the log first
	require.NoError(t, l.Append(sample(4)))
	require.Equal(t, []settlementtypes.Sample{sample(1), sample(4)}, l.Samples())
	good, err := os.Stat(path)
	require.NoError(t, err)

	ff.room = 3 // a torn write whose cut succeeds at once
	require.ErrorIs(t, l.Append(sample(5)), errDiskFull)
	info, err := os.Stat(path)
	require.NoError(t, err)
	require.Equal(t, good.Size(), info.Size(), "cut back to the last good record")
	ff.room = -1
	require.NoError(t, l.Append(sample(6)))
	require.NoError(t, l.Close())

	again, err := OpenSampleLog(path)
	require.NoError(t, err)
	require.Equal(t, []settlementtypes.Sample{sample(1), sample(4), sample(6)}, again.Samples(),
		"every append that reported success survives a restart, in order")
	require.NoError(t, again.Close())
}
