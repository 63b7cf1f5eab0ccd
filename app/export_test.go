package app_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	sdk "github.com/cosmos/cosmos-sdk/types"
	banktypes "github.com/cosmos/cosmos-sdk/x/bank/types"

	"github.com/idlegpu/idlegpu/app/apptesting"
	"github.com/idlegpu/idlegpu/x/base/chaincfg"
	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
)

// TestExportImportRoundTrip runs a chain, exports it, imports the export into
// two fresh apps and checks that (1) both reach the same app hash, (2) the
// imported chain exports exactly the same genesis, and (3) changed params and
// balances survive the trip.
func TestExportImportRoundTrip(t *testing.T) {
	accs := apptesting.NewAccounts(3, funds)

	// State the defaults would not produce: changed params in genesis and a
	// signed transfer through the real ante handler and msg router.
	a := apptesting.NewApp(t)
	gen0 := apptesting.Genesis(t, a, apptesting.NewValidator(), accs)
	params := providertypes.DefaultParams()
	params.InitialReliabilityBps = 8000
	gen0[providertypes.ModuleName] = a.AppCodec().MustMarshalJSON(&providertypes.GenesisState{Params: params, NextUnbondingId: 1})
	apptesting.InitChain(t, a, gen0)
	apptesting.NextBlock(t, a)
	res := apptesting.DeliverTx(t, a, accs[1], banktypes.NewMsgSend(accs[1].Address, accs[2].Address,
		sdk.NewCoins(sdk.NewInt64Coin(chaincfg.BondDenom, 123))))
	require.Zero(t, res.Code, res.Log)
	for range 3 {
		apptesting.NextBlock(t, a)
	}

	exported, err := a.ExportAppStateAndValidators(false, nil, nil)
	require.NoError(t, err)
	require.Len(t, exported.Validators, 1)

	var gen map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(exported.AppState, &gen))

	b := apptesting.NewApp(t)
	resB := apptesting.InitChain(t, b, gen)
	c := apptesting.NewApp(t)
	resC := apptesting.InitChain(t, c, gen)
	require.NotEmpty(t, resB.AppHash)
	require.Equal(t, resB.AppHash, resC.AppHash, "importing the same export must give the same app hash")

	// The imported chain holds the state that was exported, to the unit.
	apptesting.NextBlock(t, b)
	bctx := b.NewContext(true)
	got, err := b.ProviderKeeper.Params.Get(bctx)
	require.NoError(t, err)
	require.EqualValues(t, 8000, got.InitialReliabilityBps)
	require.Equal(t, "999998877ugpu,5000000uusdc", b.BankKeeper.GetAllBalances(bctx, accs[1].Address).String())
	require.Equal(t, "1000000123ugpu,5000000uusdc", b.BankKeeper.GetAllBalances(bctx, accs[2].Address).String())

	// Exporting the imported chain gives the same market state back (bank and
	// distribution moved on: the extra block minted inflation).
	reexported, err := b.ExportAppStateAndValidators(false, nil, nil)
	require.NoError(t, err)
	var regen map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(reexported.AppState, &regen))
	for _, module := range []string{"provider", "offer", "auction", "settlement"} {
		require.JSONEq(t, string(gen[module]), string(regen[module]), module)
	}
}

// TestExportForZeroHeight covers `idlegpud export --for-zero-height`: rewards
// are settled, heights reset, and the result starts a new chain.
func TestExportForZeroHeight(t *testing.T) {
	accs := apptesting.NewAccounts(2, funds)
	a := apptesting.Setup(t, accs)
	for range 5 {
		apptesting.NextBlock(t, a)
	}

	_, err := a.ExportAppStateAndValidators(true, []string{"idlevaloper1nope"}, nil)
	require.ErrorContains(t, err, `invalid jail-allowed validator address "idlevaloper1nope"`)

	exported, err := a.ExportAppStateAndValidators(true, nil, nil)
	require.NoError(t, err)
	require.Zero(t, exported.Height)
	require.Len(t, exported.Validators, 1)

	var gen map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(exported.AppState, &gen))
	b := apptesting.NewApp(t)
	apptesting.InitChain(t, b, gen)
	apptesting.NextBlock(t, b)
	require.EqualValues(t, 1, b.LastBlockHeight())
	require.Equal(t, funds, b.BankKeeper.GetAllBalances(b.NewContext(true), accs[1].Address))
}
