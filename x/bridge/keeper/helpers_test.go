package keeper_test

import (
	"cosmossdk.io/collections"
	"github.com/ethereum/go-ethereum/common"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/contracts/payout"
	"github.com/idlegpu/idlegpu/x/bridge/keeper"
	"github.com/idlegpu/idlegpu/x/bridge/types"
)

func collectionsJoin(nonce uint64, acc sdk.AccAddress) collections.Pair[uint64, sdk.ValAddress] {
	return collections.Join(nonce, sdk.ValAddress(acc))
}

func keeperQuerier(n *network) types.QueryServer { return keeper.NewQuerier(n.app.BridgeKeeper) }

func toPayout(v types.Valset) payout.Valset {
	out := payout.Valset{Nonce: v.Nonce}
	for _, m := range v.Members {
		out.Validators = append(out.Validators, common.HexToAddress(m.EvmAddress))
		out.Powers = append(out.Powers, m.Power)
	}
	return out
}
