package keeper_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/x/provider/keeper"
)

func TestWeightedReliability(t *testing.T) {
	for _, tc := range []struct {
		name               string
		r, outcome, weight uint32
		carry              uint32
		want               uint32
		wantCarry          uint32
	}{
		{"full proven step is the EMA step", 9000, 10_000, 10_000, 0, keeper.NextReliability(9000, 10_000), 0},
		{"full missed step is the EMA step", 9000, 0, 10_000, 0, keeper.NextReliability(9000, 0), 0},
		// 9000 → 9016 is 16 bps a step: half is 8, a third 5 and 1/3 bps carried.
		{"half a proven step", 9000, 10_000, 5_000, 0, 9008, 0},
		{"a third of a proven step carries the rest", 9000, 10_000, 3_333, 0, 9005, 3_328},
		{"half a missed step", 9000, 0, 5_000, 0, 9000 - (9000-keeper.NextReliability(9000, 0))/2, 0},
		{"a weightless epoch moves nothing", 9000, 10_000, 0, 1_234, 9000, 1_234},
		{"a tiny payment is carried, not lost", 9000, 10_000, 10, 0, 9000, 160},
		{"the carry completes a bps", 9000, 10_000, 10, 9_900, 9001, 60},
		{"weight above a step is one step", 9000, 10_000, 20_000, 0, keeper.NextReliability(9000, 10_000), 0},
		// r + carry/10000 is exact, r rounded down: a full miss (-140)
		// keeps 0.6 bps of carried gain; a third of one (-46.662 bps)
		// rounds down to -47 and carries 0.338.
		{"a full miss is one step and keeps the carried gain", 9000, 0, 10_000, 6_000, 8860, 6_000},
		{"a third of a missed step rounds down and carries the rest", 9000, 0, 3_333, 0, 8953, 3_380},
		{"the EMA's ceiling holds with a carry", 9984, 10_000, 10_000, 9_999, 9984, 9_999},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, c := keeper.WeightedReliability(tc.r, tc.outcome, tc.weight, tc.carry)
			require.Equal(t, tc.want, r)
			require.Equal(t, tc.wantCarry, c)
		})
	}
}

// TestSmallEpochsEarnReliability is the fairness case the carry fixes: a
// provider whose every proven epoch pays a small share of
// reliability_step_payment (one GPU at 2 USDC an hour, 10-minute epochs:
// 0.33 USDC against 10 USDC, weight 333 bps) did real, paid work and must
// rise towards SILVER's 95 % as one large lease paying the same would.
// Truncating each move stuck it at 90 % forever.
func TestSmallEpochsEarnReliability(t *testing.T) {
	const weight = 333
	r, carry := uint32(9000), uint32(0)
	epochs := 0
	for r < 9500 && epochs < 100_000 {
		r, carry = keeper.WeightedReliability(r, 10_000, weight, carry)
		epochs++
	}
	require.EqualValues(t, 9500, r, "small epochs must reach SILVER's floor")
	// The continuous EMA: each epoch closes weight/(64·10000) of the gap to
	// 100 %; halving a 10 % gap to 5 % takes ln 2 / -ln(1 - 333/640000).
	continuous := math.Log(2) / -math.Log(1-float64(weight)/640_000)
	require.InDelta(t, continuous, float64(epochs), continuous*0.03, "epochs to 95 %%: %d, the continuous EMA needs %.0f", epochs, continuous)

	// Ten tenth-steps move as far as one full step, within the EMA's own
	// bps rounding.
	r, carry = 9000, 0
	for range 10 {
		r, carry = keeper.WeightedReliability(r, 10_000, 1_000, carry)
	}
	require.InDelta(t, float64(keeper.NextReliability(9000, 10_000)), float64(r), 1)
}
