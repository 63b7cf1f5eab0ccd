package keeper

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"time"

	"cosmossdk.io/collections"
	sdkmath "cosmossdk.io/math"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/internal/duequeue"
	"github.com/idlegpu/idlegpu/x/settlement/types"
)

// resolve gives an audit its verdict (docs/design.md#audits, "Verdicts").
// The escrowed fee goes to the provider's rewards whatever the verdict;
// nobody earns from a failure.
//   - CORRECT: the GPU is verified for audit_validity and back in the market.
//   - WRONG: fraud, through the one conviction path (convict); no
//     beneficiary, so no one gains by provoking it.
//   - MISSED, UNPROVEN: not fraud. The GPU loses its pass and stays held;
//     the provider takes the miss penalty (auditMissPenalty).
func (k Keeper) resolve(ctx context.Context, a types.Audit, verdict types.AuditStatus, params types.Params) (sdk.Coin, error) {
	provider, err := k.addressCodec.StringToBytes(a.Provider)
	if err != nil {
		return sdk.Coin{}, err
	}
	if a.Fee.IsPositive() {
		if err := k.credit(ctx, provider, a.Fee); err != nil {
			return sdk.Coin{}, err
		}
	}
	now := sdk.UnwrapSDKContext(ctx).BlockTime()
	before, err := k.verification(ctx, a.GpuUuid)
	if err != nil {
		return sdk.Coin{}, err
	}
	after := before
	slashed := sdk.Coin{Amount: sdkmath.ZeroInt()}
	failed := 0
	if err := k.LiveAudit.Remove(ctx, a.GpuUuid); err != nil {
		return sdk.Coin{}, err
	}
	switch verdict {
	case types.AUDIT_STATUS_CORRECT:
		after.VerifiedUntil, after.MissesInRow, after.Provider = now.Add(params.AuditValidity()), 0, a.Provider
		if err := k.release(ctx, provider, a.GpuUuid); err != nil {
			return sdk.Coin{}, err
		}
	case types.AUDIT_STATUS_WRONG:
		after.VerifiedUntil = time.Time{}
		slashed, failed, err = k.convict(ctx, provider, nil, fmt.Sprintf("GPU %s failed audit %d: a sampled segment recomputes to another state", a.GpuUuid, a.Id))
		if errors.Is(err, types.ErrAlreadyTombstoned) {
			slashed, failed, err = sdk.Coin{Amount: sdkmath.ZeroInt()}, 0, nil // judged already
		}
		if err != nil {
			return sdk.Coin{}, err
		}
	case types.AUDIT_STATUS_MISSED, types.AUDIT_STATUS_UNPROVEN:
		after.VerifiedUntil = time.Time{}
		after.MissesInRow++
		if slashed, err = k.auditMissPenalty(ctx, provider, after.MissesInRow); err != nil {
			return sdk.Coin{}, err
		}
	default:
		return sdk.Coin{}, fmt.Errorf("audit %d: %s is not a verdict", a.Id, verdict)
	}
	if err := k.setVerification(ctx, before, after); err != nil {
		return sdk.Coin{}, err
	}
	prev := a
	a.Status, a.ResolvedAt, a.PruneAt = verdict, now, now.Add(params.Retention(params.EpochSeconds))
	if err := k.saveAudit(ctx, &prev, a); err != nil {
		return sdk.Coin{}, err
	}
	return slashed, sdk.UnwrapSDKContext(ctx).EventManager().EmitTypedEvent(&types.EventAuditResolved{
		AuditId: a.Id, Status: verdict, Provider: a.Provider, Requester: a.Requester, FeePaidTo: a.Provider,
		Slashed: slashed, LeasesFailed: uint32(failed), GpuUuid: a.GpuUuid, MissesInRow: after.MissesInRow,
	})
}

// auditMissPenalty is the liveness-class penalty of an audit miss
// (docs/design.md#audits, "Failure costs"): each miss moves reliability one
// full failed step; a second miss in a row of the same GPU and every one
// after also takes x/provider's liveness penalty (slash_liveness_bps and
// jail). A third party can cause at most the first: it may only audit a
// GPU with a pass, and a miss takes the pass away.
func (k Keeper) auditMissPenalty(ctx context.Context, provider sdk.AccAddress, missesInRow uint32) (sdk.Coin, error) {
	if err := k.providers.RecordEpoch(ctx, provider, false); err != nil {
		return sdk.Coin{}, err
	}
	if missesInRow < 2 {
		return sdk.Coin{Amount: sdkmath.ZeroInt()}, nil
	}
	p, err := k.providers.Provider(ctx, provider)
	if err != nil {
		return sdk.Coin{}, err
	}
	if err := k.providers.PunishLiveness(ctx, provider); err != nil {
		return sdk.Coin{}, err
	}
	after, err := k.providers.Provider(ctx, provider)
	if err != nil {
		return sdk.Coin{}, err
	}
	return p.Stake.Sub(after.Stake), nil
}

// saveAudit stores an audit and moves its queue entry to its next step.
func (k Keeper) saveAudit(ctx context.Context, before *types.Audit, a types.Audit) error {
	if before != nil {
		if err := k.AuditQueue.Remove(ctx, collections.Join(before.QueueTime(), before.Id)); err != nil {
			return err
		}
	}
	if err := k.AuditQueue.Set(ctx, collections.Join(a.QueueTime(), a.Id)); err != nil {
		return err
	}
	return k.Audits.Set(ctx, a.Id, a)
}

// stepAudits runs, oldest first and at most limit, the audit steps that are
// due: an OPEN audit past its answer deadline (moved by the time lost since
// it opened) is MISSED, an ANSWERED one past its proof deadline (moved
// likewise) UNPROVEN, a verdict past its retention is dropped. A deadline
// that lost time moved is queued again at its new time.
func (k Keeper) stepAudits(ctx context.Context, params types.Params, limit uint32) error {
	now := sdk.UnwrapSDKContext(ctx).BlockTime()
	it, err := k.AuditQueue.Iterate(ctx, nil)
	if err != nil {
		return err
	}
	// Due at its time: the block at that time has already run its txs (an
	// answer or proof at exactly the deadline is accepted).
	keys, err := duequeue.Take(it, limit, func(key collections.Pair[time.Time, uint64]) bool { return !key.K1().After(now) })
	if err != nil {
		return err
	}
	for _, key := range keys {
		a, err := k.Audits.Get(ctx, key.K2())
		if err != nil {
			return fmt.Errorf("audit %d: %w", key.K2(), err)
		}
		switch a.Status {
		case types.AUDIT_STATUS_OPEN:
			err = k.dueStep(ctx, a, a.Deadline, a.LostMsAtOpen, types.AUDIT_STATUS_MISSED, params)
		case types.AUDIT_STATUS_ANSWERED:
			err = k.dueStep(ctx, a, a.ProveDeadline, a.LostMsAtAnswer, types.AUDIT_STATUS_UNPROVEN, params)
		default:
			if err = k.AuditQueue.Remove(ctx, key); err == nil {
				err = k.Audits.Remove(ctx, a.Id)
			}
		}
		if err != nil {
			return fmt.Errorf("audit %d: %w", a.Id, err)
		}
	}
	return nil
}

// dueStep judges a live audit whose queued time has come: the verdict if
// its deadline, moved by the time lost since lostAt, has passed; otherwise
// it waits at the moved time.
func (k Keeper) dueStep(ctx context.Context, a types.Audit, deadline time.Time, lostAt uint64, verdict types.AuditStatus, params types.Params) error {
	by, err := k.movedBy(ctx, deadline, lostAt)
	if err != nil {
		return err
	}
	if by.After(sdk.UnwrapSDKContext(ctx).BlockTime()) {
		before := a
		if a.Status == types.AUDIT_STATUS_OPEN {
			a.AnswerBy = by
		} else {
			a.ProveBy = by
		}
		return k.saveAudit(ctx, &before, a)
	}
	_, err = k.resolve(ctx, a, verdict, params)
	return err
}

// drawSamples gives each audit answered in an earlier block, at most limit,
// this block's header hash as the entropy that draws its samples: nobody
// knew it when the root was committed.
func (k Keeper) drawSamples(ctx context.Context, limit uint32) error {
	sdkCtx := sdk.UnwrapSDKContext(ctx)
	rng := new(collections.Range[collections.Pair[int64, uint64]]).EndExclusive(collections.Join(sdkCtx.BlockHeight(), uint64(0)))
	it, err := k.AwaitingEntropy.Iterate(ctx, rng)
	if err != nil {
		return err
	}
	keys, err := duequeue.Take(it, limit, func(collections.Pair[int64, uint64]) bool { return true })
	if err != nil {
		return err
	}
	for _, key := range keys {
		if err := k.AwaitingEntropy.Remove(ctx, key); err != nil {
			return err
		}
		a, err := k.Audits.Get(ctx, key.K2())
		if err != nil {
			return fmt.Errorf("audit %d: %w", key.K2(), err)
		}
		if a.Status != types.AUDIT_STATUS_ANSWERED {
			continue
		}
		a.SampleEntropy = blockEntropy(sdkCtx)
		if err := k.Audits.Set(ctx, a.Id, a); err != nil {
			return err
		}
	}
	return nil
}

// blockEntropy is this block's header hash, which nobody knows before the
// block is proposed. A context without one (the SDK's simulator makes
// blocks without headers; CometBFT always sends one) uses a hash of its
// height and time instead.
func blockEntropy(ctx sdk.Context) []byte {
	if h := ctx.HeaderHash(); len(h) != 0 {
		return h
	}
	sum := sha256.Sum256(fmt.Appendf(nil, "idlegpu/no-header/%d/%d", ctx.BlockHeight(), ctx.BlockTime().UnixNano()))
	return sum[:]
}
