package keeper

import (
	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/bridge/types"
)

// CreditForTest credits a decided deposit as EndBlock does, for tests that
// drive the books without attestations.
func (k Keeper) CreditForTest(ctx sdk.Context, claim types.DepositClaim) error {
	p, err := k.Params.Get(ctx)
	if err != nil {
		return err
	}
	return k.credit(ctx, p, claim)
}
