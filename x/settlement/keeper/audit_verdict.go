package keeper

import (
	"context"
	"errors"
	"fmt"
	"time"

	"cosmossdk.io/collections"
	sdkmath "cosmossdk.io/math"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/internal/duequeue"
	"github.com/idlegpu/idlegpu/x/settlement/types"
)

// resolve gives an audit its verdict. CORRECT, BAD_REVEAL and UNREVEALED
// credit the fee to the provider's rewards; WRONG and TIMED_OUT return it to
// the auditor and convict the provider as a fraud report does (convict: the
// auditor gets the reporter's share) — unless an earlier verdict did.
func (k Keeper) resolve(ctx context.Context, a types.Audit, verdict types.AuditStatus, params types.Params) (sdk.Coin, error) {
	provider, err := k.addressCodec.StringToBytes(a.Provider)
	if err != nil {
		return sdk.Coin{}, err
	}
	auditor, err := k.addressCodec.StringToBytes(a.Auditor)
	if err != nil {
		return sdk.Coin{}, err
	}
	before := a
	if err := k.unreserve(ctx, &a); err != nil {
		return sdk.Coin{}, err
	}
	slashed := sdk.Coin{Amount: sdkmath.ZeroInt()}
	failed := 0
	paidTo := a.Provider
	switch verdict {
	case types.AUDIT_STATUS_CORRECT, types.AUDIT_STATUS_BAD_REVEAL, types.AUDIT_STATUS_UNREVEALED:
		if err := k.credit(ctx, provider, a.Fee); err != nil {
			return sdk.Coin{}, err
		}
	case types.AUDIT_STATUS_WRONG, types.AUDIT_STATUS_TIMED_OUT:
		paidTo = a.Auditor
		if err := k.bank.SendCoinsFromModuleToAccount(ctx, types.ModuleName, auditor, sdk.NewCoins(a.Fee)); err != nil {
			return sdk.Coin{}, err
		}
		reason := fmt.Sprintf("provider failed audit %d (%s)", a.Id, verdict)
		slashed, failed, err = k.convict(ctx, provider, auditor, reason)
		if errors.Is(err, types.ErrAlreadyTombstoned) {
			// An earlier verdict judged it: the auditor is refunded, no second slash.
			slashed, failed, err = sdk.Coin{Amount: sdkmath.ZeroInt()}, 0, nil
		}
		if err != nil {
			return sdk.Coin{}, err
		}
	default:
		return sdk.Coin{}, fmt.Errorf("audit %d: %s is not a verdict", a.Id, verdict)
	}
	if err := k.LiveAudit.Remove(ctx, provider); err != nil {
		return sdk.Coin{}, err
	}
	now := sdk.UnwrapSDKContext(ctx).BlockTime()
	a.Status, a.ResolvedAt, a.PruneAt = verdict, now, now.Add(params.Retention(params.EpochSeconds))
	if err := k.saveAudit(ctx, &before, a); err != nil {
		return sdk.Coin{}, err
	}
	return slashed, sdk.UnwrapSDKContext(ctx).EventManager().EmitTypedEvent(&types.EventAuditResolved{
		AuditId: a.Id, Status: verdict, Provider: a.Provider, Auditor: a.Auditor, FeePaidTo: paidTo,
		Slashed: slashed, LeasesFailed: uint32(failed),
	})
}

// unreserve gives an audited GPU back to the market.
func (k Keeper) unreserve(ctx context.Context, a *types.Audit) error {
	if err := k.Held.Remove(ctx, a.GpuUuid); err != nil {
		return err
	}
	if a.ReservedOfferId == 0 {
		return nil
	}
	if err := k.offers.VacateGPUs(ctx, a.ReservedOfferId, []string{a.GpuUuid}); err != nil {
		return err
	}
	a.ReservedOfferId = 0
	return nil
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
// due: an OPEN audit past its deadline is TIMED_OUT (fraud), an ANSWERED one
// past reveal_by is UNREVEALED (fee to the provider), a verdict past its
// retention is dropped.
func (k Keeper) stepAudits(ctx context.Context, params types.Params, limit uint32) error {
	now := sdk.UnwrapSDKContext(ctx).BlockTime()
	it, err := k.AuditQueue.Iterate(ctx, nil)
	if err != nil {
		return err
	}
	// Due at its time, as every queue: the block at that time has already run
	// its txs (an answer or reveal at exactly the deadline is accepted), and
	// no later block has the same time.
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
			err = k.timeOut(ctx, a, params)
		case types.AUDIT_STATUS_ANSWERED:
			_, err = k.resolve(ctx, a, types.AUDIT_STATUS_UNREVEALED, params)
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

// timeOut judges an OPEN audit whose deadline has come: TIMED_OUT, unless a
// halt since it opened moved the deadline — then it waits (and the
// auditor's reveal window moves with it).
func (k Keeper) timeOut(ctx context.Context, a types.Audit, params types.Params) error {
	by, err := k.answerBy(ctx, a)
	if err != nil {
		return err
	}
	if by.After(sdk.UnwrapSDKContext(ctx).BlockTime()) {
		before := a
		a.RevealBy = a.RevealBy.Add(by.Sub(a.QueueTime()))
		a.AnswerBy = by
		return k.saveAudit(ctx, &before, a)
	}
	_, err = k.resolve(ctx, a, types.AUDIT_STATUS_TIMED_OUT, params)
	return err
}

// GPUHeld reports whether a GPU is under an OPEN audit (x/offer's
// GPUHolds): held out of the market until the answer.
func (k Keeper) GPUHeld(ctx context.Context, uuid string) (bool, error) {
	return k.Held.Has(ctx, uuid)
}
