package types

import (
	"fmt"
	"slices"

	errorsmod "cosmossdk.io/errors"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/internal/check"
)

const (
	// DefaultMaxWindows is the most availability windows one offer may carry.
	DefaultMaxWindows uint32 = 32
	// DefaultMaxOffersPerProvider bounds one provider's open offers.
	DefaultMaxOffersPerProvider uint32 = 256

	// DefaultMaxGPUsPerOffer bounds one offer's GPUs.
	DefaultMaxGPUsPerOffer uint32 = check.MaxGPUsPerLease

	// MaxWindowsCap bounds max_windows itself: window checks run inside
	// clearing, so governance may raise the limit only this far.
	MaxWindowsCap uint32 = 1024
)

// DefaultParams returns the default x/offer parameters: the market trades in
// the chain's bond denom until governance adds more currencies.
func DefaultParams() Params {
	return Params{
		PaymentDenoms:        []string{sdk.DefaultBondDenom},
		MaxWindows:           DefaultMaxWindows,
		MaxOffersPerProvider: DefaultMaxOffersPerProvider,
		MaxGpusPerOffer:      DefaultMaxGPUsPerOffer,
	}
}

// Validate checks every field; the error wraps ErrInvalidParams and names the field.
func (p Params) Validate() error {
	for _, err := range []error{
		validatePaymentDenoms(p.PaymentDenoms),
		check.Positive("max_windows", p.MaxWindows),
		check.Positive("max_offers_per_provider", p.MaxOffersPerProvider),
		// Clearing loads whole offers, and a lease's GPUs come from one
		// offer: an offer no bigger than a lease keeps every lease provable.
		check.GPUsPerLease("max_gpus_per_offer", p.MaxGpusPerOffer),
	} {
		if err != nil {
			return errorsmod.Wrap(ErrInvalidParams, err.Error())
		}
	}
	if p.MaxWindows > MaxWindowsCap {
		return errorsmod.Wrapf(ErrInvalidParams, "max_windows must be at most %d, got %d", MaxWindowsCap, p.MaxWindows)
	}
	return nil
}

// validatePaymentDenoms requires a non-empty, strictly sorted list of valid
// denoms, so membership checks can binary-search and genesis is canonical.
func validatePaymentDenoms(denoms []string) error {
	if len(denoms) == 0 {
		return fmt.Errorf("payment_denoms must not be empty")
	}
	for i, d := range denoms {
		if err := sdk.ValidateDenom(d); err != nil {
			return fmt.Errorf("payment_denoms[%d]: %w", i, err)
		}
		if i > 0 && denoms[i-1] >= d {
			return fmt.Errorf("payment_denoms must be sorted and unique: %q after %q", d, denoms[i-1])
		}
	}
	return nil
}

// AcceptsDenom reports whether the market accepts payment in denom.
func (p Params) AcceptsDenom(denom string) bool {
	_, found := slices.BinarySearch(p.PaymentDenoms, denom)
	return found
}
