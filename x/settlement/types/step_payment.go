package types

import (
	"fmt"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/internal/check"
)

// Reliability steps (docs/design.md#failure-costs-and-fees): reliability
// rises with paid, proven work and falls a full step with every failure.

// ReliabilityWeight is the share, in bps, of a full reliability step a
// proven epoch paying payment moves reliability up: payment /
// reliability_step_payment in its denom, at most one step. A denom without
// a step payment moves nothing (StepPaymentCovers keeps every payment denom
// priced, so that only guards against a gap, never opens one).
func (p Params) ReliabilityWeight(payment sdk.Coin) uint32 {
	step := p.ReliabilityStepPayment.AmountOf(payment.Denom)
	if !step.IsPositive() {
		return 0
	}
	if payment.Amount.GTE(step) {
		return check.MaxBps
	}
	return uint32(payment.Amount.MulRaw(check.MaxBps).Quo(step).Uint64())
}

// StepPaymentCovers requires a reliability step payment for every payment
// denom: without one, tiny self-paid epochs in that denom would each move a
// full step. Checked in both x/settlement's and x/offer's params updates
// and at genesis.
func StepPaymentCovers(step sdk.Coins, paymentDenoms []string) error {
	for _, d := range paymentDenoms {
		if !step.AmountOf(d).IsPositive() {
			return fmt.Errorf("reliability_step_payment has no amount for payment denom %q", d)
		}
	}
	return nil
}

// validateMissWindow keeps the miss window within the 64 epochs a lease's
// record holds and no shorter than the misses that fail a lease.
func validateMissWindow(window, maxMissed uint32) error {
	if window < maxMissed || window > 64 {
		return fmt.Errorf("miss_window_epochs must be in max_missed_epochs (%d)..64, got %d", maxMissed, window)
	}
	return nil
}
