package runner

import (
	"bytes"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func readRing(t *testing.T, dir string) []byte {
	t.Helper()
	r, err := OpenJobLog(dir)
	require.NoError(t, err)
	defer r.Close()
	b, err := io.ReadAll(r)
	require.NoError(t, err)
	return b
}

// ringOnDisk is the bytes the ring's segments take.
func ringOnDisk(t *testing.T, dir string) int64 {
	var n int64
	for _, name := range []string{logRingPrevious, logRingCurrent} {
		if st, err := os.Stat(filepath.Join(dir, name)); err == nil {
			n += st.Size()
		}
	}
	return n
}

// Under its cap the ring keeps everything; past it, exactly the output's
// last part, between half the cap and the cap, and never more on disk.
func TestLogRingKeepsAnExactSuffix(t *testing.T) {
	const maxBytes = 1 << 20
	dir := t.TempDir()
	r, err := openLogRing(dir, maxBytes)
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(1, 2))
	var all bytes.Buffer
	for all.Len() < 5*maxBytes+12345 {
		chunk := make([]byte, rng.IntN(200_000)+1)
		for i := range chunk {
			chunk[i] = byte('a' + rng.IntN(26))
		}
		n, err := r.Write(chunk)
		require.NoError(t, err)
		require.Equal(t, len(chunk), n)
		all.Write(chunk)
		require.LessOrEqual(t, ringOnDisk(t, dir), int64(maxBytes))
		if all.Len() <= maxBytes/2 {
			require.Equal(t, all.Bytes(), readRing(t, dir), "nothing dropped under the cap")
		}
	}
	got := readRing(t, dir)
	require.Greater(t, len(got), maxBytes/2)
	require.LessOrEqual(t, len(got), maxBytes)
	require.True(t, bytes.HasSuffix(all.Bytes(), got))
	ring, err := r.open()
	require.NoError(t, err)
	viaJob, err := io.ReadAll(ring)
	require.NoError(t, err)
	require.NoError(t, ring.Close())
	require.Equal(t, got, viaJob)
	require.NoError(t, r.Close())

	// An adopted job continues the ring where the earlier agent left it.
	r, err = openLogRing(dir, maxBytes)
	require.NoError(t, err)
	_, err = r.Write([]byte("more"))
	require.NoError(t, err)
	require.NoError(t, r.Close())
	require.Equal(t, append(got, "more"...), readRing(t, dir))
}

func TestLogRingRefusesATinyCapAndAnEmptyDir(t *testing.T) {
	_, err := openLogRing(t.TempDir(), 1000)
	require.ErrorContains(t, err, "below the minimum")
	_, err = OpenJobLog(t.TempDir())
	require.ErrorIs(t, err, os.ErrNotExist)
}
