package keeper

import (
	"context"

	errorsmod "cosmossdk.io/errors"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/internal/check"
	"github.com/idlegpu/idlegpu/x/internal/eventjson"
	"github.com/idlegpu/idlegpu/x/provider/types"
)

// ReliabilityWindow is the EMA's smoothing: each epoch moves reliability
// 1/64 of the way to its outcome.
const ReliabilityWindow = 64

// RecordEpoch folds one epoch's outcome into the provider's reliability:
// r ← r − r/64 + outcome/64 in integer bps, outcome 10000 when proven and 0
// when missed.
func (k Keeper) RecordEpoch(ctx context.Context, provider sdk.AccAddress, proven bool) error {
	return k.RecordEpochWeighted(ctx, provider, proven, check.MaxBps)
}

// NextReliability is one step of the reliability EMA.
func NextReliability(r, outcome uint32) uint32 {
	return r - r/ReliabilityWindow + outcome/ReliabilityWindow
}

// RecordLeaseOutcome counts how one of the provider's leases ended.
func (k Keeper) RecordLeaseOutcome(ctx context.Context, provider sdk.AccAddress, outcome types.LeaseOutcome) error {
	var count func(r *types.Reputation)
	switch outcome {
	case types.LEASE_OUTCOME_COMPLETED:
		count = func(r *types.Reputation) { r.LeasesCompleted++ }
	case types.LEASE_OUTCOME_FAILED:
		count = func(r *types.Reputation) { r.LeasesFailed++ }
	case types.LEASE_OUTCOME_PREEMPTED:
		count = func(r *types.Reputation) { r.Preemptions++ }
	default:
		return errorsmod.Wrapf(types.ErrInvalidLeaseOutcome, "%s", outcome)
	}
	if err := k.updateReputation(ctx, provider, count); err != nil {
		return err
	}
	return sdk.UnwrapSDKContext(ctx).EventManager().EmitTypedEvent(&types.EventLeaseOutcomeRecorded{
		Provider: k.str(provider), Outcome: outcome,
	})
}

// Reliability returns the provider's reliability in bps (0..10000).
func (k Keeper) Reliability(ctx context.Context, provider sdk.AccAddress) (uint32, error) {
	r, err := k.reputation(ctx, provider)
	return r.ReliabilityBps, err
}

func (k Keeper) reputation(ctx context.Context, provider sdk.AccAddress) (types.Reputation, error) {
	if _, err := k.provider(ctx, provider); err != nil {
		return types.Reputation{}, err
	}
	return k.Reputations.Get(ctx, provider)
}

func (k Keeper) updateReputation(ctx context.Context, provider sdk.AccAddress, update func(*types.Reputation)) error {
	r, err := k.reputation(ctx, provider)
	if err != nil {
		return err
	}
	update(&r)
	return k.setReputation(ctx, provider, r)
}

// setReputation is the one place a reputation is written after genesis; it
// emits EventReputationChanged so reliability over time can be indexed.
func (k Keeper) setReputation(ctx context.Context, provider sdk.AccAddress, r types.Reputation) error {
	if err := k.Reputations.Set(ctx, provider, r); err != nil {
		return err
	}
	return eventjson.Emit(ctx, &types.EventReputationChanged{
		Provider: k.str(provider), Reputation: r,
	})
}
