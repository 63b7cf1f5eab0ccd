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
