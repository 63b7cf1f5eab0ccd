package daemon

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/agent/ingress"
	"github.com/idlegpu/idlegpu/endpoint"
)

// TestKeyStoreOutlivesARestart: keys and revocations are on disk when they
// are answered, a reopened store holds exactly them, a lease's keys are
// bounded, and an ended lease's are dropped with its file.
func TestKeyStoreOutlivesARestart(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ingress-keys")
	s, err := openKeyStore(dir)
	require.NoError(t, err)
	a, b, c := ingress.HashKey("igk_a"), ingress.HashKey("igk_b"), ingress.HashKey("igk_c")
	added, err := s.add(7, a)
	require.NoError(t, err)
	require.True(t, added)
	added, err = s.add(7, a)
	require.NoError(t, err)
	require.False(t, added, "a key added twice is one key")
	_, err = s.add(7, b)
	require.NoError(t, err)
	_, err = s.add(9, c)
	require.NoError(t, err)
	require.NoError(t, s.revoke(7, a))

	again, err := openKeyStore(dir)
	require.NoError(t, err)
	require.Equal(t, []ingress.KeyHash{b}, again.of(7), "the revocation was on disk")
	require.Equal(t, []ingress.KeyHash{c}, again.of(9))
	require.ElementsMatch(t, []uint64{7, 9}, again.leases())

	require.NoError(t, again.drop(9))
	_, err = os.Stat(filepath.Join(dir, "9"))
	require.ErrorIs(t, err, os.ErrNotExist)
	require.Empty(t, again.of(9))

	for i := range maxKeysPerLease - 1 {
		_, err := again.add(7, ingress.HashKey("igk_"+string(rune('A'+i%26))+string(rune(i))))
		require.NoError(t, err)
	}
	require.Len(t, again.of(7), maxKeysPerLease)
	_, err = again.add(7, ingress.HashKey("igk_one-more"))
	require.ErrorIs(t, err, endpoint.ErrTooManyKeys)

	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1, "no temporary file left: %v", entries)
}
