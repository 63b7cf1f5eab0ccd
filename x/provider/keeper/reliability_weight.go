package keeper

import (
	"context"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/internal/check"
	"github.com/idlegpu/idlegpu/x/provider/types"
)

// RecordEpochWeighted folds one epoch's outcome into the provider's
// reliability with weightBps of a full EMA step (x/settlement weighs a
// proven epoch by what it paid; a miss is a full step): reliability grows
// with paid, proven work, so gaining it by renting one's own GPUs costs
// money. The part of a bps a weighted step leaves over is carried in the
// reputation to the next one.
func (k Keeper) RecordEpochWeighted(ctx context.Context, provider sdk.AccAddress, proven bool, weightBps uint32) error {
	return k.updateReputation(ctx, provider, func(r *types.Reputation) {
		var outcome uint32
		if proven {
			outcome = check.MaxBps
			r.ProvenEpochs++
		} else {
			r.MissedEpochs++
		}
		r.ReliabilityBps, r.ReliabilityCarry = WeightedReliability(r.ReliabilityBps, outcome, weightBps, r.ReliabilityCarry)
	})
}

// WeightedReliability moves r weightBps of one EMA step towards outcome
// (docs/design.md#slashing-and-reputation), exactly: r + carry/10000 is
// the provider's reliability, carry (in 1/10000 bps, 0 ≤ carry < 10000)
// holding what the moves so far left below a whole bps. Ten epochs each
// paying a tenth of reliability_step_payment so move reliability as one
// paying it all would, where each used to round to nothing (a provider
// whose epochs each paid under about an eighth of the step payment never
// rose at all). The move rounds down, so r never exceeds the exact value
// and no tier admits a provider below its floor. A full weight moves
// exactly to NextReliability and leaves the carry; no move passes the full
// step, so r stays in [NextReliability(r, 0), NextReliability(r, 10000)].
func WeightedReliability(r, outcome, weightBps, carry uint32) (uint32, uint32) {
	step := int64(NextReliability(r, outcome)) - int64(r)
	total := step*int64(min(weightBps, check.MaxBps)) + int64(carry)
	move := total / check.MaxBps
	if total%check.MaxBps < 0 {
		move-- // floor, not truncation towards zero
	}
	return uint32(int64(r) + move), uint32(total - move*check.MaxBps)
}
