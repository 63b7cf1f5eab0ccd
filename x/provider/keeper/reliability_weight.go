package keeper

import (
	"context"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/internal/check"
	"github.com/idlegpu/idlegpu/x/provider/types"
)

// RecordEpochWeighted folds one epoch's outcome into the provider's
// reliability with weightBps of a full EMA step (x/settlement weighs an
// proven epoch by what it paid; a miss is a full step): reliability grows with paid,
// proven work, so gaining it by renting one's own GPUs costs money.
func (k Keeper) RecordEpochWeighted(ctx context.Context, provider sdk.AccAddress, proven bool, weightBps uint32) error {
	return k.updateReputation(ctx, provider, func(r *types.Reputation) {
		var outcome uint32
		if proven {
			outcome = check.MaxBps
			r.ProvenEpochs++
		} else {
			r.MissedEpochs++
		}
		r.ReliabilityBps = WeightedReliability(r.ReliabilityBps, outcome, weightBps)
	})
}

// WeightedReliability is weightBps of one EMA step towards outcome,
// truncated towards r: a full weight is exactly NextReliability.
func WeightedReliability(r, outcome, weightBps uint32) uint32 {
	step := int64(NextReliability(r, outcome)) - int64(r)
	return uint32(int64(r) + step*int64(min(weightBps, check.MaxBps))/check.MaxBps)
}
