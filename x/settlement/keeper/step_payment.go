package keeper

import (
	"context"

	errorsmod "cosmossdk.io/errors"

	"github.com/idlegpu/idlegpu/x/settlement/types"
)

// CheckPaymentDenoms is x/offer's guard on a new payment_denoms: each must
// have a reliability step payment (types.StepPaymentCovers).
func (k Keeper) CheckPaymentDenoms(ctx context.Context, denoms []string) error {
	params, err := k.Params.Get(ctx)
	if err != nil {
		return err
	}
	return types.StepPaymentCovers(params.ReliabilityStepPayment, denoms)
}

// checkStepPayment refuses params whose step payment misses one of the
// market's payment denoms.
func (k Keeper) checkStepPayment(ctx context.Context, p types.Params) error {
	if k.offers == nil {
		return nil // x/settlement's own tests run without a market
	}
	denoms, err := k.offers.PaymentDenoms(ctx)
	if err != nil {
		return err
	}
	if err := types.StepPaymentCovers(p.ReliabilityStepPayment, denoms); err != nil {
		return errorsmod.Wrap(types.ErrInvalidParams, err.Error())
	}
	return nil
}
