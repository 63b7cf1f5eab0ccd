package keeper

import (
	"context"

	errorsmod "cosmossdk.io/errors"

	"github.com/idlegpu/idlegpu/x/offer/types"
)

type denomsGuard struct{ g types.PaymentDenomsGuard }

// SetPaymentDenomsGuard installs what checks a new payment_denoms against
// the other modules' params (x/settlement's step payments); once, at wiring.
func (k Keeper) SetPaymentDenomsGuard(g types.PaymentDenomsGuard) {
	if k.denoms.g != nil {
		panic("x/offer payment denoms guard set twice")
	}
	k.denoms.g = g
}

// checkPaymentDenoms refuses payment denoms another module's params cannot
// serve (nothing to check in x/offer's own tests).
func (k Keeper) checkPaymentDenoms(ctx context.Context, denoms []string) error {
	if k.denoms.g == nil {
		return nil
	}
	if err := k.denoms.g.CheckPaymentDenoms(ctx, denoms); err != nil {
		return errorsmod.Wrap(types.ErrInvalidParams, err.Error())
	}
	return nil
}

// PaymentDenoms is the market's payment denoms (the payment_denoms param).
func (k Keeper) PaymentDenoms(ctx context.Context) ([]string, error) {
	p, err := k.Params.Get(ctx)
	return p.PaymentDenoms, err
}
