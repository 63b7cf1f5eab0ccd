package prover

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/agent/proof"
)

// TestHeadersKeepTheOldestUnprovenWindow: after a halt longer than the
// ring's age limit, the headers of the window the halt cut into stay while
// an unproven epoch needs them, and go once it no longer does.
func TestHeadersKeepTheOldestUnprovenWindow(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	h := NewHeaders(50 * time.Second)
	for i := int64(1); i <= 25; i++ {
		h.Add(proof.Header{Height: i, Time: t0.Add(time.Duration(i) * time.Second)})
	}
	h.KeepFrom(t0.Add(20 * time.Second))                            // epoch [20 s, 40 s] is still to prove
	h.Add(proof.Header{Height: 26, Time: t0.Add(95 * time.Second)}) // the first block after a 70 s halt
	got, ok := h.In(t0.Add(20*time.Second), t0.Add(40*time.Second))
	require.True(t, ok, "the window's headers outlive the halt")
	require.EqualValues(t, 20, got.Height)

	h.KeepFrom(time.Time{}) // proven: nothing held any more
	h.Add(proof.Header{Height: 27, Time: t0.Add(96 * time.Second)})
	_, ok = h.In(t0.Add(20*time.Second), t0.Add(40*time.Second))
	require.False(t, ok, "dropped once no epoch needs them")
}

func TestHeadersIn(t *testing.T) {
	t0 := time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)
	h := NewHeaders(time.Hour)
	for i := int64(1); i <= 100; i++ {
		h.Add(proof.Header{Height: i, Time: t0.Add(time.Duration(i) * 10 * time.Second)})
	}
	for _, tc := range []struct {
		from, to time.Duration
		height   int64 // 0: none
	}{
		{0, 5 * time.Second, 0},                       // before the first header
		{0, 10 * time.Second, 1},                      // the window's end is included
		{95 * time.Second, 125 * time.Second, 10},     // the first of several inside
		{101 * time.Second, 109 * time.Second, 0},     // between two headers
		{1000 * time.Second, 1000 * time.Second, 100}, // exactly the last
		{1001 * time.Second, 2000 * time.Second, 0},   // after the last
	} {
		got, ok := h.In(t0.Add(tc.from), t0.Add(tc.to))
		require.Equal(t, tc.height != 0, ok, "%v..%v", tc.from, tc.to)
		require.Equal(t, tc.height, got.Height, "%v..%v", tc.from, tc.to)
	}
}
