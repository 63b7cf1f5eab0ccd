package keeper

import (
	"context"
	"errors"

	errorsmod "cosmossdk.io/errors"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/auction/types"
	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
)

// serves is types.Serves, the tier eligibility rule. Bids are checked
// when placed and again at clearing, since reliability and status move
// between.
func serves(params types.Params, tier types.Tier, reliability uint32) bool {
	return types.Serves(params, tier, reliability)
}

// eligible returns the provider's reliability when it may serve tier: it is
// ACTIVE and its reliability is positive and at least the tier's floor.
func (k Keeper) eligible(ctx context.Context, provider sdk.AccAddress, tier types.Tier, params types.Params) (uint32, error) {
	r, err := k.activeReliability(ctx, provider)
	if err != nil {
		return 0, err
	}
	if !serves(params, tier, r) {
		return 0, errorsmod.Wrapf(types.ErrProviderNotEligible, "%s has reliability %d bps, %s needs %d", provider, r, tier, params.MinReliability(tier))
	}
	return r, nil
}

// activeReliability returns an ACTIVE provider's reliability, or
// ErrProviderNotEligible when it is not ACTIVE or has none.
func (k Keeper) activeReliability(ctx context.Context, provider sdk.AccAddress) (uint32, error) {
	p, err := k.providers.Provider(ctx, provider)
	if err != nil {
		return 0, err
	}
	if p.Status != providertypes.PROVIDER_STATUS_ACTIVE {
		return 0, errorsmod.Wrapf(types.ErrProviderNotEligible, "%s is %s", p.Operator, p.Status)
	}
	r, err := k.providers.Reliability(ctx, provider)
	if err != nil {
		return 0, err
	}
	if r == 0 {
		return 0, errorsmod.Wrapf(types.ErrProviderNotEligible, "%s has reliability 0", p.Operator)
	}
	return r, nil
}

// Eligible returns a provider's reliability if it may serve (or bid on)
// a job of tier now: ACTIVE, and reliability ≥ the tier's floor; else
// ErrProviderNotEligible.
func (k Keeper) Eligible(ctx context.Context, provider sdk.AccAddress, tier types.Tier) (uint32, error) {
	params, err := k.Params.Get(ctx)
	if err != nil {
		return 0, err
	}
	return k.eligible(ctx, provider, tier, params)
}

// providerSeen is a provider as clearing needs it: its address bytes and
// reliability, 0 when it is not ACTIVE.
type providerSeen struct {
	addr        sdk.AccAddress
	reliability uint32
}

// providerCache holds the providers one EndBlock's clearings have looked
// up: clearing changes no provider's status or reliability, and a large
// market shows each job many offers of the same providers.
type providerCache map[string]providerSeen

// providerOf returns a provider's address and reliability through pc.
func (k Keeper) providerOf(ctx context.Context, pc providerCache, operator string) (providerSeen, error) {
	if p, ok := pc[operator]; ok {
		return p, nil
	}
	addr, err := k.storedAddress(operator)
	if err != nil {
		return providerSeen{}, err
	}
	r, err := k.activeReliability(ctx, addr)
	if errors.Is(err, types.ErrProviderNotEligible) {
		r = 0
	} else if err != nil {
		return providerSeen{}, err
	}
	p := providerSeen{addr, r}
	pc[operator] = p
	return p, nil
}
