package state

import (
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
