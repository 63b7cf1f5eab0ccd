package types_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/offer/types"
)

func TestDefaultParams(t *testing.T) {
	p := types.DefaultParams()
	require.NoError(t, p.Validate())
	// docs/design.md#params.
	require.Equal(t, []string{sdk.DefaultBondDenom}, p.PaymentDenoms)
	require.EqualValues(t, 32, p.MaxWindows)
	require.EqualValues(t, 256, p.MaxOffersPerProvider)
	require.EqualValues(t, 64, p.MaxGpusPerOffer)
}

func TestParamsValidate(t *testing.T) {
	testCases := []struct {
		name   string
		modify func(*types.Params)
		expErr string
	}{
		{"no payment denoms", func(p *types.Params) { p.PaymentDenoms = nil }, "payment_denoms must not be empty"},
		{"invalid denom", func(p *types.Params) { p.PaymentDenoms = []string{"ugpu", "u$dc"} }, "payment_denoms[1]: invalid denom: u$dc"},
		{"unsorted denoms", func(p *types.Params) { p.PaymentDenoms = []string{"uusdc", "ugpu"} }, `payment_denoms must be sorted and unique: "ugpu" after "uusdc"`},
		{"duplicate denoms", func(p *types.Params) { p.PaymentDenoms = []string{"ugpu", "ugpu"} }, `payment_denoms must be sorted and unique: "ugpu" after "ugpu"`},
		{"no windows", func(p *types.Params) { p.MaxWindows = 0 }, "max_windows must be greater than 0"},
		{"windows over the cap", func(p *types.Params) { p.MaxWindows = types.MaxWindowsCap + 1 }, "max_windows must be at most 1024, got 1025"},
		{"no offers", func(p *types.Params) { p.MaxOffersPerProvider = 0 }, "max_offers_per_provider must be greater than 0"},
		{"no gpus per offer", func(p *types.Params) { p.MaxGpusPerOffer = 0 }, "max_gpus_per_offer must be greater than 0"},
		{"more gpus per offer than a proof carries", func(p *types.Params) { p.MaxGpusPerOffer = 65 },
			"max_gpus_per_offer must be at most 64 (the GPUs one lease's proof can carry), got 65"},
		{"the old cap", func(p *types.Params) { p.MaxGpusPerOffer = 1024 }, "max_gpus_per_offer must be at most 64"},
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

	// A lease takes its GPUs from one offer: the largest offer is the largest provable lease.
	p := types.DefaultParams()
	p.MaxGpusPerOffer = 64
	require.NoError(t, p.Validate())
}

func TestAcceptsDenom(t *testing.T) {
	p := types.DefaultParams()
	p.PaymentDenoms = []string{"ibc/27394FB092D2ECCD56123C74F36E4C1F926001CEADA9CA97EA622B25F41E5EB2", "ugpu", "uusdc"}
	require.NoError(t, p.Validate())
	require.True(t, p.AcceptsDenom("ugpu"))
	require.True(t, p.AcceptsDenom("uusdc"))
	require.False(t, p.AcceptsDenom("uatom"))
	require.False(t, p.AcceptsDenom(""))
}

func TestGenesisValidate(t *testing.T) {
	require.NoError(t, types.DefaultGenesis().Validate())
	gs := types.DefaultGenesis()
	gs.Params.MaxWindows = 0
	require.ErrorIs(t, gs.Validate(), types.ErrInvalidGenesis)
}
