package types_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/x/auction/types"
)

func TestDefaultParams(t *testing.T) {
	p := types.DefaultParams()
	require.NoError(t, p.Validate())
	// DESIGN.md §4.3.
	require.EqualValues(t, 500, p.MaxClearingsPerBlock)
	require.EqualValues(t, 100, p.MaxBidsPerJob)
	require.EqualValues(t, 256, p.MaxCandidatesPerJob)
	require.True(t, p.IncludeStandingOffers)
	require.Equal(t, types.CLEARING_RULE_SECOND_PRICE, p.ClearingRule)
	require.EqualValues(t, 2, p.DefaultBidWindowBlocks)
	require.EqualValues(t, 720*3600, p.MaxJobDurationSeconds)
	require.Equal(t, 720*time.Hour, p.MaxJobDuration())
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
}

func TestGenesisValidate(t *testing.T) {
	require.NoError(t, types.DefaultGenesis().Validate())
	gs := types.DefaultGenesis()
	gs.Params.MaxBidsPerJob = 0
	require.ErrorIs(t, gs.Validate(), types.ErrInvalidGenesis)
}
