package keeper_test

import (
	"cosmossdk.io/collections"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/bridge/keeper"
	"github.com/idlegpu/idlegpu/x/bridge/types"
)

func collectionsJoin(nonce uint64, acc sdk.AccAddress) collections.Pair[uint64, sdk.ValAddress] {
	return collections.Join(nonce, sdk.ValAddress(acc))
}

func collectionsJoin3(acc sdk.AccAddress, kind uint32, id uint64) collections.Triple[sdk.ValAddress, uint32, uint64] {
	return collections.Join3(sdk.ValAddress(acc), kind, id)
}

func keeperQuerier(n *network) types.QueryServer { return keeper.NewQuerier(n.app.BridgeKeeper) }
