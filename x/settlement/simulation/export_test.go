package simulation

import (
	"context"
	"math/rand"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/settlement/keeper"
	"github.com/idlegpu/idlegpu/x/settlement/types"
)

// ProveNextEpoch is an honest agent's proof of lease id's next epoch, any
// epoch (MsgSubmitProofsFactory proves only even ones), as soon as its
// window has ended: until this block's EndBlocker settles it a proof is
// on time, even past a due time that a halt moves later. ok is false while
// its window has not ended, with nothing left to settle, or when no
// recorded header lies inside the window (the chain excuses it).
func ProveNextEpoch(ctx context.Context, k keeper.Keeper, leases Leases, providers Providers, id uint64, r *rand.Rand) (types.ExecutionProof, bool, error) {
	now := sdk.UnwrapSDKContext(ctx).BlockTime()
	params, err := k.Params.Get(ctx)
	if err != nil {
		return types.ExecutionProof{}, false, err
	}
	l, err := leases.Lease(ctx, id)
	if err != nil {
		return types.ExecutionProof{}, false, err
	}
	prog, err := k.Progress.Get(ctx, id)
	if err != nil {
		return types.ExecutionProof{}, false, err
	}
	if prog.NextDue.IsZero() {
		return types.ExecutionProof{}, false, nil
	}
	prog.FillUnset(params, l.DurationSeconds)
	from, to, ok := prog.Window(l.Start, prog.NextEpoch)
	if !ok || to.After(now) || !prog.Provable(from, to) {
		return types.ExecutionProof{}, false, nil
	}
	headers, err := recordedHeaders(ctx, k)
	if err != nil {
		return types.ExecutionProof{}, false, err
	}
	h, ok := firstHeaderIn(headers, from, to)
	if !ok {
		return types.ExecutionProof{}, false, nil
	}
	p, err := honestProof(ctx, providers, proofCandidate{lease: l, prog: prog, from: from, to: to, challenge: h}, r)
	return p, err == nil, err
}
