package keeper

import (
	"context"

	"cosmossdk.io/collections"

	"github.com/idlegpu/idlegpu/x/auction/types"
	"github.com/idlegpu/idlegpu/x/internal/collutil"
)

// InitGenesis validates gs and writes it, rebuilding the clearing and
// start queues from the jobs and leases.
func (k Keeper) InitGenesis(ctx context.Context, gs *types.GenesisState) error {
	if err := gs.Validate(); err != nil {
		return err
	}
	if err := k.Params.Set(ctx, gs.Params); err != nil {
		return err
	}
	for _, s := range []struct {
		seq collections.Sequence
		v   uint64
	}{{k.JobSeq, gs.NextJobId}, {k.LeaseSeq, gs.NextLeaseId}, {k.BidSeq, gs.NextBidSeq}} {
		if err := s.seq.Set(ctx, s.v); err != nil {
			return err
		}
	}
	for _, j := range gs.Jobs {
		if err := k.Jobs.Set(ctx, j.Id, j); err != nil {
			return err
		}
		renter, err := k.storedAddress(j.Renter)
		if err != nil {
			return err
		}
		if err := k.RenterJobs.Set(ctx, collections.Join(renter, j.Id)); err != nil {
			return err
		}
		if j.Status == types.JOB_STATUS_OPEN {
			if err := k.ClearingQueue.Set(ctx, clearingKey(j)); err != nil {
				return err
			}
		}
		if !j.PruneAt.IsZero() {
			if err := k.RetiredJobs.Set(ctx, collections.Join(j.PruneAt, j.Id)); err != nil {
				return err
			}
		}
	}
	for _, b := range gs.Bids {
		provider, err := k.storedAddress(b.Provider)
		if err != nil {
			return err
		}
		if err := k.Bids.Set(ctx, collections.Join(b.JobId, provider), b); err != nil {
			return err
		}
	}
	for _, l := range gs.Leases {
		if err := k.setNewLease(ctx, l); err != nil {
			return err
		}
	}
	for _, n := range gs.UsedNonces {
		signer, err := k.storedAddress(n.Signer)
		if err != nil {
			return err
		}
		if err := k.useNonce(ctx, signer, n.Nonce, n.Deadline); err != nil {
			return err
		}
	}
	return nil
}

// ExportGenesis reads the module state back into a genesis state.
func (k Keeper) ExportGenesis(ctx context.Context) (*types.GenesisState, error) {
	params, err := k.Params.Get(ctx)
	if err != nil {
		return nil, err
	}
	gs := &types.GenesisState{Params: params}
	for _, s := range []struct {
		seq collections.Sequence
		dst *uint64
	}{{k.JobSeq, &gs.NextJobId}, {k.LeaseSeq, &gs.NextLeaseId}, {k.BidSeq, &gs.NextBidSeq}} {
		if *s.dst, err = s.seq.Peek(ctx); err != nil {
			return nil, err
		}
	}
	if gs.Jobs, err = collutil.Values(ctx, k.Jobs); err != nil {
		return nil, err
	}
	if gs.Bids, err = collutil.Values(ctx, k.Bids); err != nil {
		return nil, err
	}
	if gs.Leases, err = collutil.Values(ctx, k.Leases); err != nil {
		return nil, err
	}
	it, err := k.UsedNonces.Iterate(ctx, nil)
	if err != nil {
		return nil, err
	}
	kvs, err := it.KeyValues()
	if err != nil {
		return nil, err
	}
	for _, kv := range kvs {
		signer, err := k.addressCodec.BytesToString(kv.Key.K1())
		if err != nil {
			return nil, err
		}
		gs.UsedNonces = append(gs.UsedNonces, types.UsedNonce{Signer: signer, Nonce: kv.Key.K2(), Deadline: kv.Value})
	}
	return gs, nil
}
