package endpoint

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestNoncesExpireInOrderAndStayBounded: a nonce is refused while it
// matters, forgotten once its request could no longer pass the timestamp
// check, and the store refuses new nonces rather than grow past its cap.
func TestNoncesExpireInOrderAndStayBounded(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	n := newNonces(3)
	ok, err := n.use("a", t0, t0)
	require.NoError(t, err)
	require.True(t, ok)
	ok, err = n.use("a", t0, t0)
	require.NoError(t, err)
	require.False(t, ok, "a nonce is single-use")
	for i, ts := range []time.Time{t0.Add(2 * time.Second), t0.Add(time.Second)} {
		ok, err = n.use(fmt.Sprint("b", i), ts, t0)
		require.NoError(t, err)
		require.True(t, ok)
	}
	_, err = n.use("c", t0, t0)
	require.ErrorIs(t, err, ErrBusy, "full: refused, not remembered past the cap")
	require.Equal(t, 3, n.len())

	// Past a's expiry only a goes; then b1 (ts+1s), then b0 (ts+2s).
	ok, err = n.use("c", t0, t0.Add(MaxSkew+time.Millisecond))
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, 3, n.len())
	ok, err = n.use("d", t0.Add(MaxSkew), t0.Add(MaxSkew+1500*time.Millisecond))
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, 2, n.len(), "c and b1 expired, d added")
	ok, err = n.use("b0", t0, t0.Add(MaxSkew+1500*time.Millisecond))
	require.NoError(t, err)
	require.False(t, ok, "b0 still matters")
}

func BenchmarkNoncesUse(b *testing.B) {
	n := newNonces(1 << 20)
	now := time.Unix(1_700_000_000, 0)
	for i := range 100_000 {
		_, _ = n.use(fmt.Sprint("pre", i), now, now)
	}
	i := 0
	for b.Loop() {
		i++
		_, _ = n.use(fmt.Sprint("n", i), now, now)
	}
}
