package marketcheck

import (
	"testing"

	"github.com/stretchr/testify/require"

	sdkmath "cosmossdk.io/math"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/auction/types"
	offertypes "github.com/idlegpu/idlegpu/x/offer/types"
)

// TestVerdict: post-job and the web app refuse only a job the chain could never
// match now, by the rule clearing applies (types.Serves), and never on a
// partial view of the market.
func TestVerdict(t *testing.T) {
	params := types.DefaultParams() // silver 9500, gold 9900, bronze 0
	offer := func(provider string, free int) offertypes.CandidateInfo {
		c := offertypes.CandidateInfo{Provider: provider, Price: sdk.NewCoin("uusdc", sdkmath.NewInt(2_000_000))}
		for range free {
			c.FreeGpuUuids = append(c.FreeGpuUuids, "GPU-x")
		}
		return c
	}
	job := func(tier types.Tier, gpus uint32, split bool) types.JobSpec {
		return types.JobSpec{Tier: tier, GpuCount: gpus, AllowSplit: split, MaxPrice: sdk.NewCoin("uusdc", sdkmath.NewInt(2_500_000))}
	}
	newcomers := map[string]uint32{"a": 9000, "b": 9000}
	for _, tc := range []struct {
		name        string
		spec        types.JobSpec
		offers      []offertypes.CandidateInfo
		complete    bool
		reliability map[string]uint32
		err         string
	}{
		{"silver on a market of newcomers", job(types.TIER_SILVER, 2, false), []offertypes.CandidateInfo{offer("a", 4), offer("b", 2)}, true, newcomers,
			"2 offer(s) fit this job, but no provider of them may serve silver now: silver needs 95 % reliability and the best of them has 90 % (a new provider starts at x/provider's initial_reliability_bps and rises with proven epochs): post it as bronze (preemptible, any reliability)"},
		{"bronze takes the same newcomers", job(types.TIER_BRONZE, 2, false), []offertypes.CandidateInfo{offer("a", 4)}, true, newcomers, ""},
		{"silver with one provider at the floor exactly", job(types.TIER_SILVER, 2, false), []offertypes.CandidateInfo{offer("a", 4), offer("b", 2)}, true,
			map[string]uint32{"a": 9000, "b": 9500}, ""},
		{"gold needs 99 %", job(types.TIER_GOLD, 1, false), []offertypes.CandidateInfo{offer("a", 1)}, true, map[string]uint32{"a": 9899},
			"1 offer(s) fit this job, but no provider of them may serve gold now: gold needs 99 % reliability and the best of them has 98.99 % (a new provider starts at x/provider's initial_reliability_bps and rises with proven epochs): post it as bronze (preemptible, any reliability)"},
		{"a provider that is not ACTIVE serves nothing, not even bronze", job(types.TIER_BRONZE, 1, false), []offertypes.CandidateInfo{offer("a", 1)}, true, map[string]uint32{"a": 0},
			"1 offer(s) fit this job, but none of their providers is ACTIVE now: it would expire unfilled"},
		{"nothing fits", job(types.TIER_SILVER, 1, false), nil, true, nil,
			"no standing offer fits this job now (on-demand lane, at most 2500000uusdc a GPU-hour, its model, memory, region, image and resources): it would expire unfilled after its bid window (see the market with `idlegpud q offer search`)"},
		{"a split job counts the eligible providers' GPUs together", job(types.TIER_SILVER, 3, true), []offertypes.CandidateInfo{offer("a", 2), offer("b", 1), offer("c", 4)}, true,
			map[string]uint32{"a": 9600, "b": 9700, "c": 9000}, ""},
		{"a split job short of eligible GPUs", job(types.TIER_SILVER, 4, true), []offertypes.CandidateInfo{offer("a", 2), offer("b", 1), offer("c", 4)}, true,
			map[string]uint32{"a": 9600, "b": 9700, "c": 9000},
			"the offers that fit this job from providers that may serve silver have 3 free GPU(s) together, it needs 4: it would expire unfilled (post fewer GPUs)"},
		{"a split job short of GPUs altogether", job(types.TIER_BRONZE, 8, true), []offertypes.CandidateInfo{offer("a", 2), offer("b", 1)}, true, newcomers,
			"the offers that fit this job have 3 free GPU(s) together, it needs 8: it would expire unfilled (post fewer GPUs)"},
		{"a partial answer never refuses: a dearer offer may serve", job(types.TIER_SILVER, 1, false), []offertypes.CandidateInfo{offer("a", 1)}, false, newcomers, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Verdict(tc.spec, params, tc.offers, tc.complete, tc.reliability)
			if tc.err == "" {
				require.NoError(t, err)
				return
			}
			require.EqualError(t, err, tc.err)
		})
	}
}
