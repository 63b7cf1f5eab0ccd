package keeper

import (
	"context"
	"errors"

	"cosmossdk.io/collections"
	sdkmath "cosmossdk.io/math"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/auction/types"
	"github.com/idlegpu/idlegpu/x/internal/duequeue"
	"github.com/idlegpu/idlegpu/x/internal/eventjson"
	offertypes "github.com/idlegpu/idlegpu/x/offer/types"
)

// clearJob clears one OPEN job at its deadline: it gathers the candidates
// (explicit bids, then standing offers cheapest first), picks the winners
// and price (types.Clear), and either makes the leases or expires the job
// with a full refund.
func (k Keeper) clearJob(ctx context.Context, job types.Job, params types.Params, blk clearingBlock) error {
	cands, err := k.candidates(ctx, job, params, blk.providers, blk.walks)
	if err != nil {
		return err
	}
	spec := job.Spec
	out, ok := types.Clear(cands, spec.GpuCount, spec.AllowSplit, spec.MaxPrice.Amount, params.ClearingRule)
	if err := k.dropBids(ctx, &job); err != nil {
		return err
	}
	if !ok {
		if err := blk.refunds.add(ctx, job.Id, job.Renter, job.Deposit); err != nil {
			return err
		}
		job.Status = types.JOB_STATUS_EXPIRED
		if err := k.retire(ctx, &job); err != nil {
			return err
		}
		if err := k.Jobs.Set(ctx, job.Id, job); err != nil {
			return err
		}
		return eventjson.Emit(ctx, &types.EventJobExpired{JobId: job.Id})
	}

	price := sdk.NewCoin(spec.MaxPrice.Denom, out.Price)
	gpus := make([]uint32, len(out.Winners))
	for i, w := range out.Winners {
		gpus[i] = uint32(len(w.GPUs))
	}
	allot, err := k.allot(ctx, job, price, gpus, blk.refunds) // the surplus goes back this block
	if err != nil {
		return err
	}
	now := sdk.UnwrapSDKContext(ctx).BlockTime()
	leases := make([]types.Lease, 0, len(out.Winners))
	for i, w := range out.Winners {
		if err := blk.walks.Occupy(ctx, w.OfferID, w.GPUs); err != nil {
			return err
		}
		id, err := k.LeaseSeq.Next(ctx)
		if err != nil {
			return err
		}
		provider, err := k.addressCodec.BytesToString(w.Provider)
		if err != nil {
			return err
		}
		l := types.Lease{
			Id: id, JobId: job.Id, Renter: job.Renter, Provider: provider, OfferId: w.OfferID, GpuUuids: w.GPUs,
			Price: price, Tier: spec.Tier, DurationSeconds: spec.DurationSeconds, Escrow: allot[i],
			Paid: sdk.NewCoin(price.Denom, sdkmath.ZeroInt()), Status: types.LEASE_STATUS_PENDING,
			CreatedAt: now, StartDeadline: now.Add(params.StartTimeout()),
		}
		if err := k.setNewLease(ctx, l); err != nil {
			return err
		}
		job.LeaseIds = append(job.LeaseIds, id)
		leases = append(leases, l)
	}
	job.Status = types.JOB_STATUS_MATCHED
	job.ClearingPrice = price
	job.OpenLeases = uint32(len(out.Winners))
	if err := k.Jobs.Set(ctx, job.Id, job); err != nil {
		return err
	}
	return eventjson.Emit(ctx, &types.EventJobCleared{
		JobId: job.Id, ClearingPrice: price, Rule: params.ClearingRule, LeaseIds: job.LeaseIds, Candidates: uint32(len(cands)),
		Leases: leases,
	})
}

// candidates gathers the job's eligible candidates: every bid whose
// provider may still serve the tier and whose offer still fits, then (if
// include_standing_offers) standing offers from x/offer's walk, cheapest
// first, at most max_candidates_per_job in all. The walk stops early once
// no later offer can rank above the candidates already needed.
func (k Keeper) candidates(ctx context.Context, job types.Job, params types.Params, pc providerCache, walks offertypes.Walks) ([]types.Candidate, error) {
	spec := job.Spec
	q := spec.CandidateQuery(params)
	var bids []types.Bid
	if job.Bids > 0 {
		var err error
		if bids, err = k.JobBids(ctx, job.Id); err != nil {
			return nil, err
		}
	}
	var cands []types.Candidate
	for _, b := range bids {
		if uint32(len(cands)) >= params.MaxCandidatesPerJob {
			break
		}
		p, err := k.providerOf(ctx, pc, b.Provider)
		if err != nil {
			return nil, err
		}
		if !serves(params, spec.Tier, p.reliability) {
			continue // jailed, tombstoned or less reliable since it bid
		}
		provider, r := p.addr, p.reliability
		bq := q
		bq.GPUCount, bq.AllowSplit = b.GpuCount, false
		c, fits, err := k.offers.Fit(ctx, b.OfferId, bq)
		if errors.Is(err, offertypes.ErrOfferNotFound) {
			continue // the offer was closed since the bid
		}
		if err != nil {
			return nil, err
		}
		if !fits || c.Offer.Provider != b.Provider || b.Price.Amount.LT(c.Price.Amount) {
			continue // the offer changed since the bid
		}
		cands = append(cands, types.Candidate{
			Provider: provider, OfferID: b.OfferId, Price: b.Price.Amount, Reliability: r, Seq: b.Seq,
			FreeGPUs: c.FreeGPUs[:b.GpuCount],
		})
	}
	if !params.IncludeStandingOffers || uint32(len(cands)) >= params.MaxCandidatesPerJob {
		return cands, nil
	}
	q.MaxScan = params.MaxCandidatesPerJob - uint32(len(cands))
	stop := stopRule{spec: spec, checkAt: 2}
	_, err := walks.Walk(ctx, q, func(c offertypes.Candidate) (bool, error) {
		if stop.reached(cands, c.Price.Amount) {
			return true, nil
		}
		p, err := k.providerOf(ctx, pc, c.Offer.Provider)
		if err != nil {
			return true, err
		}
		if !serves(params, spec.Tier, p.reliability) {
			return false, nil // not ACTIVE, or not reliable enough for the tier
		}
		cands = append(cands, types.Candidate{
			Provider: p.addr, OfferID: c.Offer.Id, Price: c.Price.Amount, Reliability: p.reliability,
			Seq: types.StandingOfferSeq, FreeGPUs: c.FreeGPUs,
		})
		return false, nil
	})
	return cands, err
}

// stopRule decides when a cheapest-first walk can stop: once the
// candidates so far fill the job and have a runner-up, and the next price is
// above the runner-up's effective price. Since effective ≥ price
// (reliability ≤ 10000), nothing later can rank above the runner-up; a
// strict comparison keeps equal-score tie-breaks exact.
//
// Clearing the candidates at every step would cost O(n² log n) per job, so
// the threshold (the runner-up's effective price) is recomputed only when
// the candidates have doubled, and a price above the cached threshold is
// confirmed against a fresh one before stopping. So every stop is one the
// per-step rule takes too, perhaps a few candidates later, and candidates
// past that point rank below the runner-up: the outcome is the one an
// exhaustive walk gives (TestStopRuleMatchesExhaustiveClearing).
type stopRule struct {
	spec    types.JobSpec
	checkAt int
	// ru is the runner-up at the last check; nil: the job was not filled.
	ru *types.Candidate
}

func (s *stopRule) reached(cands []types.Candidate, price sdkmath.Int) bool {
	if len(cands) >= s.checkAt {
		s.refresh(cands)
		s.checkAt = 2 * len(cands)
	}
	if s.ru == nil || !above(price, s.ru) {
		return false
	}
	s.refresh(cands)
	return s.ru != nil && above(price, s.ru)
}

func (s *stopRule) refresh(cands []types.Candidate) {
	out, ok := types.Clear(cands, s.spec.GpuCount, s.spec.AllowSplit, s.spec.MaxPrice.Amount, types.CLEARING_RULE_FIRST_PRICE)
	s.ru = nil
	if ok {
		s.ru = out.RunnerUp
	}
}

// above reports price > ru.price × 10000 / ru.reliability, cross-multiplied
// exactly: the price at full reliability (10,000 bps) against the runner-up.
func above(price sdkmath.Int, ru *types.Candidate) bool {
	return types.CmpEffective(types.Candidate{Price: price, Reliability: 10_000}, *ru) > 0
}

// clearingBlock is what one EndBlock's clearings share: the providers
// looked up, the walks of x/offer's index (each range opened once and each
// offer read once: x/offer's Walks, which also leases the GPUs) and the
// refunds, paid after the last clearing.
type clearingBlock struct {
	providers providerCache
	walks     offertypes.Walks
	refunds   *refundBatch
}

// clearDue clears the OPEN jobs whose deadline has come, oldest first, at
// most max_clearings_per_block; the rest wait for the next block.
func (k Keeper) clearDue(ctx context.Context, params types.Params) (int, error) {
	height := sdk.UnwrapSDKContext(ctx).BlockHeight()
	it, err := k.ClearingQueue.Iterate(ctx, nil)
	if err != nil {
		return 0, err
	}
	due, err := duequeue.Take(it, params.MaxClearingsPerBlock, func(key collections.Pair[int64, uint64]) bool { return key.K1() <= height })
	if err != nil {
		return 0, err
	}
	blk := clearingBlock{providers: providerCache{}, walks: k.offers.NewWalks(), refunds: newRefundBatch()}
	defer blk.walks.Close()
	for _, key := range due {
		if err := k.ClearingQueue.Remove(ctx, key); err != nil {
			return 0, err
		}
		job, err := k.Job(ctx, key.K2())
		if err != nil {
			return 0, err
		}
		if err := k.clearJob(ctx, job, params, blk); err != nil {
			return 0, err
		}
	}
	return len(due), k.payRefunds(ctx, blk.refunds)
}

// setNewLease stores a lease with its queue and index entries.
func (k Keeper) setNewLease(ctx context.Context, l types.Lease) error {
	provider, err := k.storedAddress(l.Provider)
	if err != nil {
		return err
	}
	renter, err := k.storedAddress(l.Renter)
	if err != nil {
		return err
	}
	if err := k.Leases.Set(ctx, l.Id, l); err != nil {
		return err
	}
	if l.Status == types.LEASE_STATUS_PENDING {
		if err := k.StartQueue.Set(ctx, collections.Join(l.StartDeadline, l.Id)); err != nil {
			return err
		}
	}
	if err := k.ProviderLeases.Set(ctx, collections.Join(provider, l.Id)); err != nil {
		return err
	}
	if live(l) {
		if err := k.LiveLeases.Set(ctx, collections.Join(provider, l.Id)); err != nil {
			return err
		}
	}
	return k.RenterLeases.Set(ctx, collections.Join(renter, l.Id))
}
