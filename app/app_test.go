package app_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	sdk "github.com/cosmos/cosmos-sdk/types"
	authtypes "github.com/cosmos/cosmos-sdk/x/auth/types"
	banktypes "github.com/cosmos/cosmos-sdk/x/bank/types"

	"github.com/idlegpu/idlegpu/app"
	"github.com/idlegpu/idlegpu/app/apptesting"
	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
	"github.com/idlegpu/idlegpu/x/base/chaincfg"
	offertypes "github.com/idlegpu/idlegpu/x/offer/types"
	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
	settlementtypes "github.com/idlegpu/idlegpu/x/settlement/types"
)

var funds = sdk.NewCoins(sdk.NewInt64Coin(chaincfg.BondDenom, 1_000_000_000), sdk.NewInt64Coin(chaincfg.USDCDenom, 5_000_000))

func TestAppBootsFromDefaultGenesis(t *testing.T) {
	accs := apptesting.NewAccounts(2, funds)
	a := apptesting.Setup(t, accs)
	apptesting.NextBlock(t, a)
	require.EqualValues(t, 2, a.LastBlockHeight())

	ctx := a.NewContext(true)

	// Every market module starts from the defaults in docs/design.md#params.
	pp, err := a.ProviderKeeper.Params.Get(ctx)
	require.NoError(t, err)
	require.Equal(t, providertypes.DefaultParams(), pp)
	require.Equal(t, "100000000ugpu", pp.MinStakePerGpu.String())
	op, err := a.OfferKeeper.Params.Get(ctx)
	require.NoError(t, err)
	require.Equal(t, []string{chaincfg.BondDenom}, op.PaymentDenoms)
	ap, err := a.AuctionKeeper.Params.Get(ctx)
	require.NoError(t, err)
	require.Equal(t, auctiontypes.DefaultParams(), ap)
	sp, err := a.SettlementKeeper.Params.Get(ctx)
	require.NoError(t, err)
	require.Equal(t, settlementtypes.DefaultParams(), sp)
	require.Equal(t, offertypes.DefaultParams(), op)

	// The chain's denoms and balances are what genesis said.
	require.Equal(t, chaincfg.BondDenom, mustStakingBondDenom(t, a))
	require.Equal(t, funds, a.BankKeeper.GetAllBalances(ctx, accs[1].Address))
	md, found := a.BankKeeper.GetDenomMetaData(ctx, chaincfg.USDCDenom)
	require.True(t, found)
	require.Equal(t, "usdc", md.Display)
	require.EqualValues(t, 6, md.DenomUnits[1].Exponent)
}

func TestDefaultGenesisValidates(t *testing.T) {
	a := apptesting.NewApp(t)
	gen := a.DefaultGenesis()
	for _, name := range []string{providertypes.ModuleName, offertypes.ModuleName, auctiontypes.ModuleName, settlementtypes.ModuleName} {
		require.Contains(t, gen, name)
	}
	require.NoError(t, a.ModuleBasics().ValidateGenesis(a.AppCodec(), a.TxConfig(), gen))

	var bank banktypes.GenesisState
	require.NoError(t, a.AppCodec().UnmarshalJSON(gen[banktypes.ModuleName], &bank))
	require.Equal(t, app.DenomMetadata(), bank.DenomMetadata)
}

func TestBlockedAddresses(t *testing.T) {
	blocked := app.BlockedAddresses()
	// gov may receive deposits; every other module account is closed to users.
	require.Len(t, blocked, len(app.ModuleAccountPermissions())-1)
	for name := range app.ModuleAccountPermissions() {
		addr := authtypes.NewModuleAddress(name).String()
		require.Equal(t, name != "gov", blocked[addr], name)
	}
}

func mustStakingBondDenom(t *testing.T, a *app.App) string {
	t.Helper()
	d, err := a.StakingKeeper.BondDenom(a.NewContext(true))
	require.NoError(t, err)
	return d
}
