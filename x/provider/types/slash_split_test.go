package types_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"cosmossdk.io/math"

	"github.com/idlegpu/idlegpu/x/provider/types"
)

func ints(vs ...int64) []math.Int {
	out := make([]math.Int, len(vs))
	for i, v := range vs {
		out[i] = math.NewInt(v)
	}
	return out
}

func TestSplitSlash(t *testing.T) {
	for _, tc := range []struct {
		name            string
		parts           []int64
		fraction, share uint32
		rewarded        bool
		cuts            []int64
		burned, reward  int64
	}{
		{"penalty burned, reward on top from the bonded stake", []int64{1_000, 300, 201}, 5_000, 5_000, true, []int64{875, 150, 100}, 750, 375},
		{"no beneficiary: the penalty only", []int64{1_000, 300, 201}, 5_000, 5_000, false, []int64{500, 150, 100}, 750, 0},
		{"reward spills into the oldest entry", []int64{100, 600, 400}, 5_000, 5_000, true, []int64{100, 525, 200}, 550, 275},
		{"a full penalty leaves no reward", []int64{1_000, 300}, 10_000, 5_000, true, []int64{1_000, 300}, 1_300, 0},
		{"reward capped by what is left", []int64{1_000}, 8_000, 5_000, true, []int64{1_000}, 800, 200},
		{"share 0: all burned", []int64{1_000}, 5_000, 0, true, []int64{500}, 500, 0},
		{"rounding down per part", []int64{3, 3}, 5_000, 5_000, true, []int64{2, 1}, 2, 1},
		{"nothing at stake", []int64{0}, 5_000, 5_000, true, []int64{0}, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			split := types.SplitSlash(ints(tc.parts...), tc.fraction, tc.share, tc.rewarded)
			require.Equal(t, ints(tc.cuts...), split.Cuts)
			require.Equal(t, math.NewInt(tc.burned), split.Burned)
			require.Equal(t, math.NewInt(tc.reward), split.Reward)
		})
	}
}

// TestSplitSlashEconomics checks the rule's promises over a grid of stakes,
// fractions and shares: the cuts add up to burned + reward and never pass a
// part; the burned penalty does not depend on whether anyone is rewarded
// (so a self-reporter loses at least what an unreported fault costs); the
// reward is the share of the penalty unless the stake runs out.
func TestSplitSlashEconomics(t *testing.T) {
	for _, parts := range [][]int64{{0}, {1}, {7, 0, 13}, {1_000, 300, 201}, {5, 1_000_000}, {999_999_999, 1, 2, 3, 4, 5, 6}} {
		held := math.ZeroInt()
		for _, p := range parts {
			held = held.AddRaw(p)
		}
		for _, fraction := range []uint32{1, 100, 3_333, 5_000, 9_999, 10_000} {
			for _, share := range []uint32{0, 1, 2_500, 5_000, 10_000} {
				plain := types.SplitSlash(ints(parts...), fraction, share, false)
				split := types.SplitSlash(ints(parts...), fraction, share, true)
				require.Equal(t, plain.Burned, split.Burned, "the penalty is the same whoever reports")
				require.True(t, plain.Reward.IsZero())
				sum := math.ZeroInt()
				for i, c := range split.Cuts {
					require.False(t, c.IsNegative())
					require.True(t, c.LTE(math.NewInt(parts[i])), "a cut never passes its part")
					sum = sum.Add(c)
				}
				require.Equal(t, split.Total(), sum, "the cuts are burned + reward")
				want := split.Burned.MulRaw(int64(share)).QuoRaw(10_000)
				require.True(t, split.Reward.LTE(want))
				if split.Reward.LT(want) {
					require.Equal(t, held, sum, "the reward falls short only when nothing is left")
				}
				// A self-reporter's net loss: everything taken minus the
				// reward it gets back, which is the penalty.
				require.Equal(t, split.Burned, split.Total().Sub(split.Reward))
			}
		}
	}
}
