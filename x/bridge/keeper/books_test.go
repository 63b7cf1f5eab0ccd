package keeper_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/app/apptesting"
	"github.com/idlegpu/idlegpu/x/bridge/types"
)

// TestGenesisRefusesUnbackedSupply: a genesis that holds the bridged denom
// without declaring it (totals.unbacked) does not start.
func TestGenesisRefusesUnbackedSupply(t *testing.T) {
	accs := apptesting.NewAccounts(1, apptesting.MarketFunds())
	a := apptesting.NewApp(t)
	gen := apptesting.Genesis(t, a, apptesting.NewValidator(), accs)
	var bg types.GenesisState
	a.AppCodec().MustUnmarshalJSON(gen[types.ModuleName], &bg)
	require.Equal(t, apptesting.StartBalance.String(), bg.Totals.Unbacked.String(), "the test genesis declares its pre-mint")
	bg.Totals.Unbacked = bg.Totals.Unbacked.SubRaw(1)
	bg.UnbackedHolders[0].Amount = bg.UnbackedHolders[0].Amount.SubRaw(1)
	gen[types.ModuleName] = a.AppCodec().MustMarshalJSON(&bg)
	require.PanicsWithError(t, "failed to init bridge genesis: supply of uusdc is 1000000000000, books say 999999999999 + 0 − 0 = 999999999999",
		func() { apptesting.InitChain(t, a, gen) })
}

// TestGenesisRefusesOverdeclaredHolder: a holder declared to hold more
// unbacked coins than its balance does not start, even when the holders
// sum to totals.unbacked.
func TestGenesisRefusesOverdeclaredHolder(t *testing.T) {
	accs := apptesting.NewAccounts(2, apptesting.MarketFunds())
	a := apptesting.NewApp(t)
	gen := apptesting.Genesis(t, a, apptesting.NewValidator(), accs)
	var bg types.GenesisState
	a.AppCodec().MustUnmarshalJSON(gen[types.ModuleName], &bg)
	require.Len(t, bg.UnbackedHolders, 2, "the test genesis declares each holder")
	bg.UnbackedHolders[0].Amount = bg.UnbackedHolders[0].Amount.AddRaw(1)
	bg.UnbackedHolders[1].Amount = bg.UnbackedHolders[1].Amount.SubRaw(1)
	gen[types.ModuleName] = a.AppCodec().MustMarshalJSON(&bg)
	var err error
	func() {
		defer func() { err, _ = recover().(error) }()
		apptesting.InitChain(t, a, gen)
	}()
	require.ErrorIs(t, err, types.ErrInvalidGenesis)
	require.ErrorContains(t, err, "failed to init bridge genesis: unbacked holder "+bg.UnbackedHolders[0].Address+
		" declares 1000000000001uusdc, holds 1000000000000uusdc: invalid genesis state")
}

// TestWithdrawalsNeverPassDeposits: pre-minted (unbacked) coins cannot be
// withdrawn (the holder's mark covers its whole balance), so no root asks
// the vault for more than it took in.
func TestWithdrawalsNeverPassDeposits(t *testing.T) {
	accs := apptesting.NewAccounts(1, apptesting.MarketFunds())
	a := apptesting.Setup(t, accs)
	res := apptesting.DeliverTx(t, a, accs[0], &types.MsgWithdrawToEvm{
		Sender: accs[0].Address.String(), EvmRecipient: "0x00000000000000000000000000000000000000aa",
		Amount: sdk.NewInt64Coin("uusdc", 1_000_000),
	})
	require.Equal(t, types.ErrUnbacked.ABCICode(), res.Code, res.Log)
	require.Equal(t, apptesting.StartBalance, a.BankKeeper.GetBalance(a.NewContext(true), accs[0].Address, "uusdc").Amount)
	require.NoError(t, a.BridgeKeeper.CheckInvariants(a.NewContext(true)))
}
