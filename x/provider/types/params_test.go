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
	// DESIGN.md §4.1, to the unit.
	require.Equal(t, sdk.NewInt64Coin(sdk.DefaultBondDenom, 100_000_000), p.MinStakePerGpu)
	require.Equal(t, 336*time.Hour, p.UnbondingPeriod)
	require.Equal(t, time.Hour, p.JailDuration)
	require.Equal(t, "0.500000000000000000", p.SlashFraud.String())
	require.Equal(t, "0.010000000000000000", p.SlashLiveness.String())
	require.Equal(t, "0.500000000000000000", p.FraudReporterShare.String())
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
		{"zero unbonding period", func(p *types.Params) { p.UnbondingPeriod = 0 }, "unbonding_period must be positive"},
		{"fractional unbonding period", func(p *types.Params) { p.UnbondingPeriod = time.Hour + time.Millisecond }, "unbonding_period must be whole seconds"},
		{"negative jail", func(p *types.Params) { p.JailDuration = -time.Second }, "jail_duration must be positive"},
		{"slash fraud above one", func(p *types.Params) { p.SlashFraud = math.LegacyNewDecWithPrec(101, 2) }, "slash_fraud must be at most 1"},
		{"slash fraud zero", func(p *types.Params) { p.SlashFraud = math.LegacyZeroDec() }, "slash_fraud must be greater than 0"},
		{"slash fraud unset", func(p *types.Params) { p.SlashFraud = math.LegacyDec{} }, "slash_fraud must be set"},
		{"negative liveness slash", func(p *types.Params) { p.SlashLiveness = math.LegacyNewDec(-1) }, "slash_liveness must not be negative"},
		{"reporter share above one", func(p *types.Params) { p.FraudReporterShare = math.LegacyNewDec(2) }, "fraud_reporter_share must be at most 1"},
		{"reliability above 100%", func(p *types.Params) { p.InitialReliabilityBps = 10_001 }, "initial_reliability_bps must be at most 10000 bps"},
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
	p.FraudReporterShare = math.LegacyZeroDec() // burn everything
	p.SlashFraud = math.LegacyOneDec()          // take everything
	p.InitialReliabilityBps = 10_000
	require.NoError(t, p.Validate())
}

func TestGenesisValidate(t *testing.T) {
	require.NoError(t, types.DefaultGenesis().Validate())
	gs := types.DefaultGenesis()
	gs.Params.MaxGpusPerProvider = 0
	require.ErrorIs(t, gs.Validate(), types.ErrInvalidGenesis)
}
