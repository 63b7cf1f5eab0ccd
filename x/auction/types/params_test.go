package types_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/x/auction/types"
	"github.com/idlegpu/idlegpu/x/internal/check"
	providerkeeper "github.com/idlegpu/idlegpu/x/provider/keeper"
	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
)

func TestDefaultParams(t *testing.T) {
	p := types.DefaultParams()
	require.NoError(t, p.Validate())
	// docs/design.md#params.
	require.EqualValues(t, 500, p.MaxClearingsPerBlock)
	require.EqualValues(t, 100, p.MaxBidsPerJob)
	require.EqualValues(t, 256, p.MaxCandidatesPerJob)
	require.True(t, p.IncludeStandingOffers)
	require.Equal(t, types.CLEARING_RULE_SECOND_PRICE, p.ClearingRule)
	require.EqualValues(t, 2, p.DefaultBidWindowBlocks)
	require.EqualValues(t, 720*3600, p.MaxJobDurationSeconds)
	require.EqualValues(t, 600, p.StartTimeoutSeconds)
	require.Equal(t, 10*time.Minute, p.StartTimeout())
	require.Equal(t, types.TierMinReliability{GoldBps: 9900, SilverBps: 9500, BronzeBps: 0}, p.TierMinReliability)
}

func TestParamsValidate(t *testing.T) {
	testCases := []struct {
		name   string
		modify func(*types.Params)
		expErr string
	}{
		{"no clearings per block", func(p *types.Params) { p.MaxClearingsPerBlock = 0 }, "max_clearings_per_block must be greater than 0"},
		{"no bids per job", func(p *types.Params) { p.MaxBidsPerJob = 0 }, "max_bids_per_job must be greater than 0"},
		{"no candidates", func(p *types.Params) { p.MaxCandidatesPerJob = 0 }, "max_candidates_per_job must be greater than 0"},
		{"unspecified rule", func(p *types.Params) { p.ClearingRule = types.CLEARING_RULE_UNSPECIFIED }, "clearing_rule must be SECOND_PRICE or FIRST_PRICE, got CLEARING_RULE_UNSPECIFIED"},
		{"unknown rule", func(p *types.Params) { p.ClearingRule = 7 }, "clearing_rule must be SECOND_PRICE or FIRST_PRICE, got 7"},
		{"zero job duration", func(p *types.Params) { p.MaxJobDurationSeconds = 0 }, "max_job_duration_seconds must be greater than 0"},
		{"start timeout beyond 100 years", func(p *types.Params) { p.StartTimeoutSeconds = 1 << 40 }, "start_timeout_seconds must be at most 3153600000 (100 years), got 1099511627776"},
		{"gold above 100%", func(p *types.Params) { p.TierMinReliability.GoldBps = 10_001 }, "tier_min_reliability.gold_bps must be at most 10000 bps"},
		{"silver above gold", func(p *types.Params) { p.TierMinReliability.SilverBps = 9950 }, "tier_min_reliability must satisfy gold >= silver >= bronze, got 9900, 9950, 0"},
		{"bronze above silver", func(p *types.Params) { p.TierMinReliability.BronzeBps = 9600 }, "gold >= silver >= bronze, got 9900, 9500, 9600"},
		{"gold above the reachable reliability", func(p *types.Params) { p.TierMinReliability.GoldBps = 9985 },
			"tier_min_reliability.gold_bps must be at most 9984 bps (the most a provider's reliability can climb to), got 9985"},
		{"every floor above the reachable reliability", func(p *types.Params) {
			p.TierMinReliability = types.TierMinReliability{GoldBps: 10_000, SilverBps: 10_000, BronzeBps: 10_000}
		}, "tier_min_reliability.gold_bps must be at most 9984 bps"},
		{"no gpus per job", func(p *types.Params) { p.MaxGpusPerJob = 0 }, "max_gpus_per_job must be greater than 0"},
		{"more gpus per job than a proof carries", func(p *types.Params) { p.MaxGpusPerJob = 65 },
			"max_gpus_per_job must be at most 64 (the GPUs one lease's proof can carry), got 65"},
		{"the old cap", func(p *types.Params) { p.MaxGpusPerJob = 1024 }, "max_gpus_per_job must be at most 64"},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			p := types.DefaultParams()
			tc.modify(&p)
			err := p.Validate()
			require.ErrorIs(t, err, types.ErrInvalidParams)
			require.ErrorContains(t, err, tc.expErr)
		})
	}

	// Instant matching (bid window 0) and equal tier floors are allowed.
	p := types.DefaultParams()
	p.DefaultBidWindowBlocks = 0
	p.TierMinReliability = types.TierMinReliability{GoldBps: 9000, SilverBps: 9000, BronzeBps: 9000}
	require.NoError(t, p.Validate())

	// The highest reachable floor and the GPUs of the largest provable lease are allowed.
	p = types.DefaultParams()
	p.TierMinReliability = types.TierMinReliability{GoldBps: 9984, SilverBps: 9984, BronzeBps: 9984}
	p.MaxGpusPerJob = 64
	require.NoError(t, p.Validate())
}

// TestMaxReachableReliability pins x/provider's ceiling to its EMA: from
// every start below it, proving every epoch climbs to exactly the ceiling and
// never past it, so a tier floor above it would shut out every provider that
// ever started lower. Starts at or above it stay where they are.
func TestMaxReachableReliability(t *testing.T) {
	ceiling := providertypes.MaxReachableReliabilityBps
	for start := uint32(0); start <= check.MaxBps; start++ {
		want, r := start, start
		if start < ceiling {
			want = ceiling
		}
		for next := providerkeeper.NextReliability(r, check.MaxBps); next != r; next = providerkeeper.NextReliability(r, check.MaxBps) {
			if next < r || next > want {
				t.Fatalf("from %d: %d -> %d", start, r, next)
			}
			r = next
		}
		if r != want {
			t.Fatalf("from %d: settles at %d, want %d", start, r, want)
		}
	}
}

func TestGenesisValidate(t *testing.T) {
	require.NoError(t, types.DefaultGenesis().Validate())
	gs := types.DefaultGenesis()
	gs.Params.MaxBidsPerJob = 0
	require.ErrorIs(t, gs.Validate(), types.ErrInvalidGenesis)
}
