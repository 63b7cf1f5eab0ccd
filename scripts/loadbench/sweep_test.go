package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestSaturationAndPeak: the rules that decide when a sweep stops and which
// step's rate is reported.
func TestSaturationAndPeak(t *testing.T) {
	keptUp := StepResult{Offered: 100, Txs: 1500, Accepted: 1500, Committed: 1500, TxPerSec: 93, P95: time.Second}
	require.False(t, keptUp.Saturated(), "93 of 100 tx/s, everything taken in and committed")

	slow := keptUp
	slow.TxPerSec = 79
	require.True(t, slow.Saturated(), "below 80 % of the offered rate")
	late := keptUp
	late.P95 = 11 * time.Second
	require.True(t, late.Saturated(), "p95 over 10 s")
	refused := keptUp
	refused.Accepted = 1400
	require.True(t, refused.Saturated(), "over 5 % refused by the mempool")
	lost := keptUp
	lost.Lost = 1
	require.True(t, lost.Saturated(), "a tx never committed")

	// A burst the mempool mostly refused is not a sustained rate: the peak
	// is the best step that took its load in.
	burst := StepResult{Offered: 6400, Txs: 96000, Accepted: 9000, TxPerSec: 3985}
	best := StepResult{Offered: 3200, Txs: 48000, Accepted: 48000, TxPerSec: 3066}
	over := StepResult{Offered: 1600, Txs: 24000, Accepted: 24000, TxPerSec: 1469}
	require.Equal(t, best, Peak([]StepResult{over, best, burst}))
	require.Equal(t, StepResult{}, Peak([]StepResult{burst}))
}

func TestPercentileIsTheNearestRank(t *testing.T) {
	xs := make([]float64, 100)
	for i := range xs {
		xs[i] = float64(i + 1)
	}
	for _, c := range []struct{ p, want float64 }{{0.5, 50}, {0.95, 95}, {0.99, 99}, {1, 100}, {0.001, 1}} {
		if got := percentile(xs, c.p); got != c.want {
			t.Errorf("p%g of 1..100 = %g, want %g", c.p*100, got, c.want)
		}
	}
	// Of 150 values p99 is the 149th, the second highest.
	ys := make([]float64, 150)
	for i := range ys {
		ys[i] = float64(i + 1)
	}
	if got := percentile(ys, 0.99); got != 149 {
		t.Errorf("p99 of 1..150 = %g, want 149", got)
	}
	if got := percentile(nil, 0.99); got != 0 {
		t.Errorf("p99 of nothing = %g, want 0", got)
	}
}
