package keeper

import (
	"context"
	"errors"

	"cosmossdk.io/collections"
	errorsmod "cosmossdk.io/errors"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/auction/types"
)

// Job returns a job by id, or ErrJobNotFound, saying whether it was pruned.
func (k Keeper) Job(ctx context.Context, id uint64) (types.Job, error) {
	j, err := k.Jobs.Get(ctx, id)
	if errors.Is(err, collections.ErrNotFound) {
		return j, k.notFound(ctx, types.ErrJobNotFound, "job", id, k.JobSeq)
	}
	return j, err
}

// Lease returns a lease by id, or ErrLeaseNotFound, saying whether it was
// pruned.
func (k Keeper) Lease(ctx context.Context, id uint64) (types.Lease, error) {
	l, err := k.Leases.Get(ctx, id)
	if errors.Is(err, collections.ErrNotFound) {
		return l, k.notFound(ctx, types.ErrLeaseNotFound, "lease", id, k.LeaseSeq)
	}
	return l, err
}

// notFound words a missing id: ids are handed out in order and only
// pruning deletes a job or lease, so an id below the sequence's next one
// existed and was pruned (retention.go).
func (k Keeper) notFound(ctx context.Context, class *errorsmod.Error, what string, id uint64, seq collections.Sequence) error {
	next, err := seq.Peek(ctx)
	if err != nil {
		return err
	}
	if id > 0 && id < next {
		return errorsmod.Wrapf(class, "%s %d ended and was pruned record_retention_seconds later; the web app's index keeps it", what, id)
	}
	return errorsmod.Wrapf(class, "%s %d", what, id)
}

// address decodes a bech32 field of a message.
func (k Keeper) address(field, s string) (sdk.AccAddress, error) {
	b, err := k.addressCodec.StringToBytes(s)
	if err != nil {
		return nil, errorsmod.Wrapf(types.ErrInvalidAddress, "%s %q: %s", field, s, err)
	}
	return b, nil
}

// storedAddress decodes an address read from state (valid by construction).
func (k Keeper) storedAddress(s string) (sdk.AccAddress, error) {
	return k.addressCodec.StringToBytes(s)
}

// actsFor reports whether signer is the provider's operator or one of its agents.
func (k Keeper) actsFor(ctx context.Context, signer sdk.AccAddress, provider string) (bool, error) {
	addr, err := k.storedAddress(provider)
	if err != nil {
		return false, err
	}
	return k.providers.IsAuthorized(ctx, addr, signer)
}

// dropBids removes every bid on a job (bounded by max_bids_per_job).
func (k Keeper) dropBids(ctx context.Context, job *types.Job) error {
	if job.Bids == 0 {
		return nil // no iterator: opening one on a dirty block cache is not free
	}
	job.Bids = 0
	keys, err := k.bidKeys(ctx, job.Id)
	if err != nil {
		return err
	}
	for _, key := range keys {
		if err := k.Bids.Remove(ctx, key); err != nil {
			return err
		}
	}
	return nil
}

func (k Keeper) bidKeys(ctx context.Context, jobID uint64) ([]collections.Pair[uint64, sdk.AccAddress], error) {
	it, err := k.Bids.Iterate(ctx, collections.NewPrefixedPairRange[uint64, sdk.AccAddress](jobID))
	if err != nil {
		return nil, err
	}
	return it.Keys()
}

// JobBids returns a job's bids in provider order.
func (k Keeper) JobBids(ctx context.Context, jobID uint64) ([]types.Bid, error) {
	it, err := k.Bids.Iterate(ctx, collections.NewPrefixedPairRange[uint64, sdk.AccAddress](jobID))
	if err != nil {
		return nil, err
	}
	return it.Values()
}
