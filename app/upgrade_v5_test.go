package app_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/encoding/protowire"

	sdk "github.com/cosmos/cosmos-sdk/types"
	upgradetypes "github.com/cosmos/cosmos-sdk/x/upgrade/types"

	"github.com/idlegpu/idlegpu/app"
	"github.com/idlegpu/idlegpu/app/apptesting"
	v5 "github.com/idlegpu/idlegpu/app/upgrades/v5"
	auctionkeeper "github.com/idlegpu/idlegpu/x/auction/keeper"
	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
	bridgekeeper "github.com/idlegpu/idlegpu/x/bridge/keeper"
)

// The domain a version-1 chain's x/auction params named: a testnet's chain
// and a deployed vault, not the defaults, so the hand-over is seen.
const (
	v1EvmChainID = 84532
	v1Vault      = "0x5FbDB2315678afecb367f032d93F642f64180aa3"
)

// TestV5HandsTheVaultToTheBridge: a chain from before v5 (x/auction version
// 1 naming the EIP-712 domain in its params, x/bridge version 2 without the
// vault or a duty bound) runs the upgrade. x/bridge then names the same
// vault, bounds duty checks at max_credits_per_block + 2, x/auction's
// stored params no longer carry the old fields, and the domain signed
// messages are checked under is unchanged. The two migrations give the same
// state whichever runs first (the module manager runs x/auction's first).
func TestV5HandsTheVaultToTheBridge(t *testing.T) {
	for _, tc := range []struct {
		name string
		run  func(t *testing.T, a *app.App, ctx sdk.Context)
	}{
		{"the v5 upgrade handler", func(t *testing.T, a *app.App, ctx sdk.Context) {
			fromVM := a.ModuleManager.GetVersionMap()
			fromVM[auctiontypes.ModuleName], fromVM["bridge"] = 1, 2
			toVM, err := v5.Upgrade.CreateHandler(a.ModuleManager, a.Configurator(), &a.Keepers)(ctx, upgradetypes.Plan{Name: v5.UpgradeName}, fromVM)
			require.NoError(t, err)
			require.EqualValues(t, 3, toVM[auctiontypes.ModuleName], "every x/auction migration this binary has")
			require.EqualValues(t, 3, toVM["bridge"])
		}},
		{"x/bridge's migration first", func(t *testing.T, a *app.App, ctx sdk.Context) {
			require.NoError(t, bridgekeeper.NewMigrator(a.BridgeKeeper).Migrate2to3(ctx))
			require.NoError(t, auctionkeeper.NewMigrator(a.AuctionKeeper).Migrate1to2(ctx))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, ctx := preV5Chain(t)
			tc.run(t, a, ctx)

			bp, err := a.BridgeKeeper.Params.Get(ctx)
			require.NoError(t, err)
			require.EqualValues(t, v1EvmChainID, bp.EvmChainId)
			require.Equal(t, v1Vault, bp.VaultAddress)
			require.EqualValues(t, 42, bp.MaxDutyChecksPerBlock, "max_credits_per_block 40 + a valset + a root")
			require.NoError(t, bp.Validate())

			raw := ctx.KVStore(a.GetKey(auctiontypes.StoreKey)).Get(auctiontypes.ParamsKey.Bytes())
			require.False(t, hasField(t, raw, 11) || hasField(t, raw, 12), "the old fields are gone from x/auction's store")
			ap, err := a.AuctionKeeper.Params.Get(ctx)
			require.NoError(t, err)
			require.Equal(t, auctiontypes.DefaultParams(), ap, "the rest of x/auction's params as they were")

			res, err := auctionQuery(a).Params(ctx, &auctiontypes.QueryParamsRequest{})
			require.NoError(t, err)
			require.EqualValues(t, v1EvmChainID, res.EvmChainId)
			require.Equal(t, v1Vault, res.VerifyingContract)
			d, err := a.AuctionKeeper.EVMDomain(ctx)
			require.NoError(t, err)
			require.EqualValues(t, v1EvmChainID, d.ChainID)
			require.Equal(t, v1Vault, d.VerifyingContract.Hex())
		})
	}
}

// preV5Chain is a chain set back to the state versions before v5: x/auction's
// params stored with fields 11 and 12, x/bridge's without the fields of
// version 3 and with max_credits_per_block 40.
func preV5Chain(t *testing.T) (*app.App, sdk.Context) {
	t.Helper()
	a, ctx, _ := upgradeChain(t)

	ap, err := a.AuctionKeeper.Params.Get(ctx)
	require.NoError(t, err)
	raw, err := ap.Marshal()
	require.NoError(t, err)
	raw = protowire.AppendTag(raw, 11, protowire.VarintType)
	raw = protowire.AppendVarint(raw, v1EvmChainID)
	raw = protowire.AppendTag(raw, 12, protowire.BytesType)
	raw = protowire.AppendString(raw, v1Vault)
	ctx.KVStore(a.GetKey(auctiontypes.StoreKey)).Set(auctiontypes.ParamsKey.Bytes(), raw)

	bp, err := a.BridgeKeeper.Params.Get(ctx)
	require.NoError(t, err)
	bp.EvmChainId, bp.VaultAddress, bp.MaxDutyChecksPerBlock, bp.MaxCreditsPerBlock = 0, "", 0, 40
	require.NoError(t, a.BridgeKeeper.Params.Set(ctx, bp))
	return a, ctx
}

// upgradeChain is a one-validator chain past its first block, with two
// funded accounts, and a context that writes straight to its stores.
func upgradeChain(t *testing.T) (*app.App, sdk.Context, []apptesting.Account) {
	t.Helper()
	accs := apptesting.NewAccounts(2, sdk.NewCoins(sdk.NewInt64Coin("ugpu", 1_000_000_000_000)))
	a := apptesting.NewApp(t)
	apptesting.InitChain(t, a, apptesting.GenesisWithValidators(t, a, accs, 1))
	apptesting.NextBlock(t, a)
	return a, a.NewUncachedContext(false, a.GetContextForCheckTx(nil).BlockHeader()), accs
}

// hasField reports whether the encoded message b has a field numbered num.
func hasField(t *testing.T, b []byte, num protowire.Number) bool {
	t.Helper()
	for len(b) > 0 {
		n, typ, l := protowire.ConsumeTag(b)
		require.GreaterOrEqual(t, l, 0)
		b = b[l:]
		if n == num {
			return true
		}
		l = protowire.ConsumeFieldValue(n, typ, b)
		require.GreaterOrEqual(t, l, 0)
		b = b[l:]
	}
	return false
}

func auctionQuery(a *app.App) auctiontypes.QueryServer {
	return auctionkeeper.NewQuerier(a.AuctionKeeper)
}
