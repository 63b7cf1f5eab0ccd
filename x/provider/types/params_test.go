package types_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"cosmossdk.io/math"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/provider/types"
)

func TestDefaultParams(t *testing.T) {
	p := types.DefaultParams()
	require.NoError(t, p.Validate())
	// docs/design.md#params, to the unit.
	require.Equal(t, sdk.NewInt64Coin(sdk.DefaultBondDenom, 100_000_000), p.MinStakePerGpu)
	require.EqualValues(t, 336*3600, p.UnbondingPeriodSeconds)
	require.Equal(t, 336*time.Hour, p.UnbondingPeriod())
	require.EqualValues(t, 3600, p.JailDurationSeconds)
	require.Equal(t, time.Hour, p.JailDuration())
	require.EqualValues(t, 5000, p.SlashFraudBps)
	require.EqualValues(t, 100, p.SlashLivenessBps)
	require.EqualValues(t, 5000, p.FraudReporterShareBps)
	require.EqualValues(t, 9000, p.InitialReliabilityBps)
	require.EqualValues(t, 1024, p.MaxGpusPerProvider)
}

func TestParamsValidate(t *testing.T) {
	testCases := []struct {
		name   string
		modify func(*types.Params)
		expErr string
	}{
		{"zero stake per gpu", func(p *types.Params) { p.MinStakePerGpu.Amount = math.ZeroInt() }, "min_stake_per_gpu must be positive"},
		{"bad stake denom", func(p *types.Params) { p.MinStakePerGpu.Denom = "1x" }, "min_stake_per_gpu: invalid denom: 1x"},
		{"zero unbonding period", func(p *types.Params) { p.UnbondingPeriodSeconds = 0 }, "unbonding_period_seconds must be greater than 0"},
		{"unbonding period that overflows time.Duration", func(p *types.Params) { p.UnbondingPeriodSeconds = 1 << 62 }, "unbonding_period_seconds must be at most 3153600000 (100 years)"},
		{"no jail", func(p *types.Params) { p.JailDurationSeconds = 0 }, "jail_duration_seconds must be greater than 0"},
		{"slash fraud above 100%", func(p *types.Params) { p.SlashFraudBps = 10_100 }, "slash_fraud_bps must be at most 10000 bps, got 10100"},
		{"slash fraud zero", func(p *types.Params) { p.SlashFraudBps = 0 }, "slash_fraud_bps must be greater than 0"},
		{"liveness slash zero", func(p *types.Params) { p.SlashLivenessBps = 0 }, "slash_liveness_bps must be greater than 0"},
		{"liveness slash above 100%", func(p *types.Params) { p.SlashLivenessBps = 10_001 }, "slash_liveness_bps must be at most 10000 bps"},
		{"reporter share above 100%", func(p *types.Params) { p.FraudReporterShareBps = 20_000 }, "fraud_reporter_share_bps must be at most 10000 bps, got 20000"},
		{"reliability above 100%", func(p *types.Params) { p.InitialReliabilityBps = 10_001 }, "initial_reliability_bps must be at most 10000 bps"},
		{"reliability 0: no new provider could ever be matched", func(p *types.Params) { p.InitialReliabilityBps = 0 }, "initial_reliability_bps must be greater than 0"},
		{"no gpus allowed", func(p *types.Params) { p.MaxGpusPerProvider = 0 }, "max_gpus_per_provider must be greater than 0"},
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

	// The edges that are allowed.
	p := types.DefaultParams()
	p.FraudReporterShareBps = 0 // burn everything
	p.SlashFraudBps = 10_000    // take everything
	p.InitialReliabilityBps = 10_000
	require.NoError(t, p.Validate())
}

func TestParamsValidateUpdate(t *testing.T) {
	current := types.DefaultParams()
	next := current
	next.MinStakePerGpu.Amount = math.NewInt(250_000_000)
	require.NoError(t, current.ValidateUpdate(next), "the amount may change")

	next.MinStakePerGpu.Denom = "uusdc"
	err := current.ValidateUpdate(next)
	require.ErrorIs(t, err, types.ErrInvalidParams)
	require.ErrorContains(t, err, "the stake denom is stake and cannot change to uusdc")

	next = current
	next.MaxGpusPerMsg = 0
	require.ErrorIs(t, current.ValidateUpdate(next), types.ErrInvalidParams, "the new params must be valid too")
}
