package keeper

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"cosmossdk.io/collections"
	errorsmod "cosmossdk.io/errors"
	sdkmath "cosmossdk.io/math"

	sdk "github.com/cosmos/cosmos-sdk/types"

	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
	"github.com/idlegpu/idlegpu/x/internal/eventjson"
	"github.com/idlegpu/idlegpu/x/settlement/types"
)

// SubmitProofs checks every proof of the message, then settles each in
// order: any failure rejects the whole message and, the tx being atomic,
// pays nothing.
func (m msgServer) SubmitProofs(ctx context.Context, msg *types.MsgSubmitProofs) (*types.MsgSubmitProofsResponse, error) {
	signer, err := m.addressCodec.StringToBytes(msg.Signer)
	if err != nil {
		return nil, errorsmod.Wrapf(types.ErrUnauthorized, "signer: %v", err)
	}
	provider, err := m.addressCodec.StringToBytes(msg.Provider)
	if err != nil {
		return nil, errorsmod.Wrapf(types.ErrUnauthorized, "provider: %v", err)
	}
	if err := msg.ValidateBasic(); err != nil { // the proof count
		return nil, err
	}
	if ok, err := m.providers.IsAuthorized(ctx, provider, signer); err != nil || !ok {
		return nil, errorsmod.Wrapf(types.ErrUnauthorized, "%s may not act for %s", msg.Signer, msg.Provider)
	}
	params, err := m.Params.Get(ctx)
	if err != nil {
		return nil, err
	}
	// Every proof is checked and priced first, then x/auction pays them
	// all in one call (one transfer into this module per message, not one
	// per proof: the same sums, a tenth of the state machine's work and of
	// the events every node indexes), then each is recorded. Payment flows
	// one way: x/auction is called once and calls nothing back.
	batch := map[uint64]*batchLease{}
	payments := make([]auctiontypes.LeasePayment, len(msg.Proofs))
	priced := make([]sdk.Coin, len(msg.Proofs))
	for i, p := range msg.Proofs {
		until, paid, err := m.checkProof(ctx, msg.Provider, p, params, batch)
		if err != nil {
			return nil, errorsmod.Wrapf(err, "proof %d (lease %d, epoch %d)", i, p.LeaseId, p.Epoch)
		}
		payments[i], priced[i] = auctiontypes.LeasePayment{LeaseID: p.LeaseId, ProvenUntil: until}, paid
	}
	paidEach, paid, err := m.auction.PayLeases(ctx, payments)
	if err != nil {
		return nil, err
	}
	var fees sdk.Coins
	for i, p := range msg.Proofs {
		// Priced and paid by the one rule (auctiontypes.Accrue): a
		// difference is a broken invariant, never a reason to pay either.
		if !paidEach[i].Equal(priced[i]) {
			return nil, errorsmod.Wrapf(types.ErrPaymentMismatch, "proof %d (lease %d, epoch %d): paid %s, priced %s", i, p.LeaseId, p.Epoch, paidEach[i], priced[i])
		}
		fee, err := m.recordProof(ctx, msg.Provider, provider, p, params, priced[i], batch[p.LeaseId])
		if err != nil {
			return nil, errorsmod.Wrapf(err, "proof %d (lease %d, epoch %d)", i, p.LeaseId, p.Epoch)
		}
		fees = fees.Add(fee)
	}
	if !fees.IsZero() {
		if err := m.bank.SendCoinsFromModuleToModule(ctx, types.ModuleName, m.feeCollector, fees); err != nil {
			return nil, err
		}
	}
	for _, c := range paid.Sub(fees...) {
		if err := m.credit(ctx, provider, c); err != nil {
			return nil, err
		}
	}
	return &types.MsgSubmitProofsResponse{Paid: paid}, nil
}

// batchLease is a lease as the message's earlier proofs leave it: its
// paid total and its settled epochs and proven time. read is its lease and
// progress as checkProof read them, which recordProof uses for the lease's
// first proof of the message: PayLeases changes only what it paid, and
// nothing writes the progress between the two.
type batchLease struct {
	lease auctiontypes.Lease
	prog  types.LeaseProgress
	read  *readLease
}

type readLease struct {
	lease auctiontypes.Lease
	prog  types.LeaseProgress
}

// checkProof verifies one proof against the chain
// (x/settlement/README.md, "Messages") and prices it: it returns the
// lease's proven time up to which x/auction pays and what that pays
// (auctiontypes.Accrue). It writes nothing; batch carries the lease's
// progress from one proof of the message to the next. A lease is judged
// by the params it started with. provider is the message's address.
func (k Keeper) checkProof(ctx context.Context, provider string, p types.ExecutionProof, params types.Params, batch map[uint64]*batchLease) (time.Time, sdk.Coin, error) {
	if err := p.ValidateBasic(); err != nil {
		return time.Time{}, sdk.Coin{}, err
	}
	b, ok := batch[p.LeaseId]
	if !ok {
		lease, err := k.auction.Lease(ctx, p.LeaseId)
		if err != nil {
			return time.Time{}, sdk.Coin{}, err
		}
		if lease.Provider != provider {
			return time.Time{}, sdk.Coin{}, errorsmod.Wrapf(types.ErrUnauthorized, "lease %d is %s's", lease.Id, lease.Provider)
		}
		if !settling(lease) {
			return time.Time{}, sdk.Coin{}, errorsmod.Wrapf(types.ErrLeaseNotActive, "lease %d is %s", lease.Id, lease.Status)
		}
		prog, err := k.progress(ctx, lease, params)
		if err != nil {
			return time.Time{}, sdk.Coin{}, err
		}
		b = &batchLease{lease: lease, prog: prog, read: &readLease{lease: lease, prog: prog}}
		batch[p.LeaseId] = b
	}
	lease, prog := b.lease, b.prog
	now := sdk.UnwrapSDKContext(ctx).BlockTime()
	from, to, ok := prog.Window(lease.Start, p.Epoch)
	switch {
	case !ok:
		return time.Time{}, sdk.Coin{}, errorsmod.Wrapf(types.ErrWrongWindow, "lease %d has %d epochs", lease.Id, prog.Epochs())
	case p.Epoch < prog.NextEpoch:
		return time.Time{}, sdk.Coin{}, errorsmod.Wrapf(types.ErrEpochProven, "lease %d is settled up to epoch %d", lease.Id, prog.NextEpoch)
	case to.After(now):
		return time.Time{}, sdk.Coin{}, errorsmod.Wrapf(types.ErrEpochNotEnded, "epoch %d ends at %s", p.Epoch, to)
	}
	if p.Epoch > prog.NextEpoch {
		// In order, except past windows without a block: recordProof
		// excuses those first (halts.go: emptyWindowsBefore).
		empty, err := k.emptyWindowsBefore(ctx, lease.Start, prog, p.Epoch)
		if err != nil {
			return time.Time{}, sdk.Coin{}, err
		}
		if !empty {
			return time.Time{}, sdk.Coin{}, errorsmod.Wrapf(types.ErrEpochOutOfOrder, "prove epoch %d first", prog.NextEpoch)
		}
	}
	if !p.WindowStart.Equal(from) || !p.WindowEnd.Equal(to) {
		return time.Time{}, sdk.Coin{}, errorsmod.Wrapf(types.ErrWrongWindow, "epoch %d is [%s, %s]", p.Epoch, from, to)
	}
	if err := k.checkChallenge(ctx, p); err != nil {
		return time.Time{}, sdk.Coin{}, err
	}
	if err := k.checkTelemetry(ctx, lease, p, prog); err != nil {
		return time.Time{}, sdk.Coin{}, err
	}
	// The proven time, cumulatively: missed epochs are never paid, and the
	// last payment settles the lease to the unit.
	b.prog.ProvenSeconds += uint64(to.Sub(from) / time.Second)
	b.prog.NextEpoch = p.Epoch + 1
	until := lease.Start.Add(time.Duration(b.prog.ProvenSeconds) * time.Second)
	paid, next, err := auctiontypes.Accrue(lease, until)
	if err != nil {
		return time.Time{}, sdk.Coin{}, err
	}
	b.lease = next
	return until, paid, nil
}

// recordProof records a checked proof x/auction has paid: the lease's
// progress, the fee (the caller moves the coins: take_rate to the fee
// collector, the rest to the provider's rewards), the provider's
// reliability, the proof itself and its event. The last epoch ends the
// lease. addr is the message's provider decoded once per message. b is the
// lease's checks: its first proof of the message records onto what they
// read; a later one reads the progress the earlier one wrote.
func (k Keeper) recordProof(ctx context.Context, provider string, addr sdk.AccAddress, p types.ExecutionProof, params types.Params, paid sdk.Coin, b *batchLease) (fee sdk.Coin, err error) {
	var lease auctiontypes.Lease
	var prog types.LeaseProgress
	if b.read != nil {
		lease, prog = b.read.lease, b.read.prog
		b.read = nil
	} else {
		if lease, err = k.auction.Lease(ctx, p.LeaseId); err != nil {
			return sdk.Coin{}, err
		}
		if prog, err = k.progress(ctx, lease, params); err != nil {
			return sdk.Coin{}, err
		}
	}
	from, to, _ := prog.Window(lease.Start, p.Epoch)
	if err := k.unschedule(ctx, lease.Start, &prog); err != nil {
		return sdk.Coin{}, err
	}
	if err := k.excuseEmptyBefore(ctx, lease, &prog, p.Epoch); err != nil {
		return sdk.Coin{}, err
	}
	prog.ProvenSeconds += uint64(to.Sub(from) / time.Second)
	prog.ProvenEpochs++
	prog.NextEpoch++
	if fee, err = k.feeOf(ctx, addr, paid, params.TakeRateBps); err != nil {
		return sdk.Coin{}, err
	}
	if err := k.providers.RecordEpochWeighted(ctx, addr, true, params.ReliabilityWeight(paid)); err != nil {
		return sdk.Coin{}, err
	}
	prog.Settled(false, false)
	if err := k.storeProof(ctx, types.ProofRecord{
		Proof: p, Provider: provider, Paid: paid, Fee: fee, SubmittedAt: sdk.UnwrapSDKContext(ctx).BlockTime(),
	}, prog.EpochSeconds, params); err != nil {
		return sdk.Coin{}, err
	}
	if err := eventjson.Emit(ctx, &types.EventProofAccepted{
		LeaseId: lease.Id, Epoch: p.Epoch, Provider: provider, Paid: paid, Fee: fee, SamplesRoot: p.SamplesRoot,
	}); err != nil {
		return sdk.Coin{}, err
	}
	return fee, k.advance(ctx, lease, prog)
}

// progress returns a lease's settlement progress, which x/auction's start
// hook creates; a record from before the params snapshot gets the current
// ones.
func (k Keeper) progress(ctx context.Context, lease auctiontypes.Lease, params types.Params) (types.LeaseProgress, error) {
	p, err := k.Progress.Get(ctx, lease.Id)
	if err != nil {
		return p, fmt.Errorf("lease %d has no settlement progress: %w", lease.Id, err)
	}
	p.FillUnset(params, lease.DurationSeconds)
	return p, nil
}

// checkChallenge: the challenge is a recent block's header hash, and that
// block's time lies inside the window, so the proof was made after the
// epoch began.
func (k Keeper) checkChallenge(ctx context.Context, p types.ExecutionProof) error {
	h, err := k.Headers.Get(ctx, p.ChallengeHeight)
	if errors.Is(err, collections.ErrNotFound) {
		return errorsmod.Wrapf(types.ErrBadChallenge, "no recent header at height %d", p.ChallengeHeight)
	}
	if err != nil {
		return err
	}
	if !bytes.Equal(h.Hash, p.ChallengeHash) {
		return errorsmod.Wrapf(types.ErrBadChallenge, "height %d has another header hash", p.ChallengeHeight)
	}
	if h.Time.Before(p.WindowStart) || h.Time.After(p.WindowEnd) {
		return errorsmod.Wrapf(types.ErrBadChallenge, "height %d (%s) is outside the window", p.ChallengeHeight, h.Time)
	}
	return nil
}

// checkTelemetry: the proof covers exactly the lease's GPUs, with enough
// samples, and figures the registered GPUs can produce.
func (k Keeper) checkTelemetry(ctx context.Context, lease auctiontypes.Lease, p types.ExecutionProof, params types.LeaseProgress) error {
	if len(p.Gpus) != len(lease.GpuUuids) {
		return errorsmod.Wrapf(types.ErrGPUSetMismatch, "%d GPUs, the lease has %d", len(p.Gpus), len(lease.GpuUuids))
	}
	window := p.WindowEnd.Sub(p.WindowStart)
	minSamples := params.MinSamples(window)
	// At most one sample per interval, plus the one at the window's start.
	maxSamples := uint64(window/params.SampleInterval()) + 1
	seconds := uint64(window / time.Second)
	for _, g := range p.Gpus {
		if !slices.Contains(lease.GpuUuids, g.Uuid) {
			return errorsmod.Wrapf(types.ErrGPUSetMismatch, "%s is not in lease %d", g.Uuid, lease.Id)
		}
		if uint64(g.Samples) < minSamples {
			return errorsmod.Wrapf(types.ErrTooFewSamples, "%s: %d samples, the window needs %d", g.Uuid, g.Samples, minSamples)
		}
		if uint64(g.Samples) > maxSamples {
			return errorsmod.Wrapf(types.ErrImplausible, "%s: %d samples, a %s window holds at most %d", g.Uuid, g.Samples, window, maxSamples)
		}
		if g.ProcsMin < 1 {
			return errorsmod.Wrapf(types.ErrImplausible, "%s: the job's process was not on the GPU for the whole epoch", g.Uuid)
		}
		gpu, err := k.providers.GPU(ctx, g.Uuid)
		if err != nil {
			return err
		}
		if g.MemUsedMaxMib > gpu.MemoryMib {
			return errorsmod.Wrapf(types.ErrImplausible, "%s: %d MiB used of %d", g.Uuid, g.MemUsedMaxMib, gpu.MemoryMib)
		}
		model, ok := params.GPUModel(gpu.Model)
		if !ok {
			continue // no power figures for this model: memory and presence are all we can judge
		}
		if g.MemUsedMaxMib > model.MemoryMib && model.MemoryMib > 0 {
			return errorsmod.Wrapf(types.ErrImplausible, "%s: %d MiB used, a %s has %d", g.Uuid, g.MemUsedMaxMib, gpu.Model, model.MemoryMib)
		}
		// Energy in mJ: between half the idle draw and 110 % of the max
		// draw over the window (W × s × 1000).
		lo := sdkmath.NewIntFromUint64(uint64(model.IdleW)).MulRaw(int64(seconds)).MulRaw(500)
		hi := sdkmath.NewIntFromUint64(uint64(model.MaxW)).MulRaw(int64(seconds)).MulRaw(1100)
		if e := sdkmath.NewIntFromUint64(g.EnergyMj); e.LT(lo) || e.GT(hi) {
			return errorsmod.Wrapf(types.ErrImplausible, "%s: %d mJ over %s; a %s draws %s..%s mJ", g.Uuid, g.EnergyMj, window, gpu.Model, lo, hi)
		}
	}
	return nil
}
