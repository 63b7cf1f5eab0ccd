package keeper

import (
	"context"
	"slices"
	"time"

	"cosmossdk.io/collections"
	sdkmath "cosmossdk.io/math"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/internal/collutil"
	"github.com/idlegpu/idlegpu/x/settlement/types"
)

// InitGenesis validates gs and writes it to the store.
func (k Keeper) InitGenesis(ctx context.Context, gs *types.GenesisState) error {
	if err := gs.Validate(); err != nil {
		return err
	}
	if err := k.checkStepPayment(ctx, gs.Params); err != nil {
		return err
	}
	if err := k.Params.Set(ctx, gs.Params); err != nil {
		return err
	}
	for _, h := range gs.Headers {
		if err := k.Headers.Set(ctx, h.Height, h); err != nil {
			return err
		}
	}
	for _, p := range gs.Progress {
		if err := k.Progress.Set(ctx, p.LeaseId, p); err != nil {
			return err
		}
		if !p.NextDue.IsZero() {
			if err := k.Due.Set(ctx, collections.Join(p.NextDue, p.LeaseId)); err != nil {
				return err
			}
			if from, _, ok := p.Window(p.Start, p.NextEpoch); ok {
				if err := k.Windows.Set(ctx, collections.Join(from, p.LeaseId)); err != nil {
					return err
				}
			}
		}
	}
	for _, r := range gs.FeeRemainders {
		provider, err := k.addressCodec.StringToBytes(r.Provider)
		if err != nil {
			return err
		}
		if err := k.FeeRemainders.Set(ctx, collections.Join(sdk.AccAddress(provider), r.Denom), r.Remainder); err != nil {
			return err
		}
	}
	for _, r := range gs.Proofs {
		if err := k.Proofs.Set(ctx, collections.Join(r.Proof.LeaseId, r.Proof.Epoch), r); err != nil {
			return err
		}
		if err := k.Prune.Set(ctx, collections.Join3(r.PruneAt, r.Proof.LeaseId, r.Proof.Epoch)); err != nil {
			return err
		}
	}
	if err := k.initAudits(ctx, gs); err != nil {
		return err
	}
	for _, r := range gs.Rewards {
		addr, err := k.addressCodec.StringToBytes(r.Provider)
		if err != nil {
			return err
		}
		for _, c := range r.Rewards {
			if err := k.Rewards.Set(ctx, collections.Join(sdk.AccAddress(addr), c.Denom), c.Amount); err != nil {
				return err
			}
		}
	}
	return nil
}

// initAudits writes the audits and rebuilds their queue and the live-audit
// index from them, then the GPUs' records with their expiry entries, the
// holds and the lost time; audit ids continue from next_audit_id (1 on a
// new chain).
func (k Keeper) initAudits(ctx context.Context, gs *types.GenesisState) error {
	if err := k.AuditSeq.Set(ctx, max(gs.NextAuditId, 1)); err != nil {
		return err
	}
	for _, a := range gs.Audits {
		if err := k.saveAudit(ctx, nil, a); err != nil {
			return err
		}
		if a.IsLive() {
			if err := k.LiveAudit.Set(ctx, a.GpuUuid, a.Id); err != nil {
				return err
			}
		}
		if a.Status == types.AUDIT_STATUS_ANSWERED && len(a.SampleEntropy) == 0 {
			if err := k.AwaitingEntropy.Set(ctx, collections.Join(a.AnsweredHeight, a.Id)); err != nil {
				return err
			}
		}
	}
	for _, c := range gs.Cooldowns {
		if err := k.Cooldowns.Set(ctx, c.GpuUuid, c.LastAudit); err != nil {
			return err
		}
	}
	for _, v := range gs.Verifications {
		if err := k.setVerification(ctx, types.GPUVerification{}, v); err != nil {
			return err
		}
	}
	for _, h := range gs.Holds {
		if err := k.Holds.Set(ctx, h.GpuUuid, h.OfferId); err != nil {
			return err
		}
	}
	return k.LostTime.Set(ctx, gs.LostMs)
}

// ExportGenesis reads the module state back into a genesis state.
func (k Keeper) ExportGenesis(ctx context.Context) (*types.GenesisState, error) {
	params, err := k.Params.Get(ctx)
	if err != nil {
		return nil, err
	}
	gs := &types.GenesisState{Params: params}
	if gs.Headers, err = collutil.Values(ctx, k.Headers); err != nil {
		return nil, err
	}
	if gs.Progress, err = collutil.Values(ctx, k.Progress); err != nil {
		return nil, err
	}
	if gs.Proofs, err = collutil.Values(ctx, k.Proofs); err != nil {
		return nil, err
	}
	if gs.Audits, err = collutil.Values(ctx, k.Audits); err != nil {
		return nil, err
	}
	if gs.FeeRemainders, err = k.exportFeeRemainders(ctx); err != nil {
		return nil, err
	}
	if gs.NextAuditId, err = k.AuditSeq.Peek(ctx); err != nil {
		return nil, err
	}
	err = k.Cooldowns.Walk(ctx, nil, func(gpu string, t time.Time) (bool, error) {
		gs.Cooldowns = append(gs.Cooldowns, types.GPUAuditCooldown{GpuUuid: gpu, LastAudit: t})
		return false, nil
	})
	if err != nil {
		return nil, err
	}
	if gs.Verifications, err = collutil.Values(ctx, k.Verifications); err != nil {
		return nil, err
	}
	err = k.Holds.Walk(ctx, nil, func(gpu string, offer uint64) (bool, error) {
		gs.Holds = append(gs.Holds, types.GPUHold{GpuUuid: gpu, OfferId: offer})
		return false, nil
	})
	if err != nil {
		return nil, err
	}
	if gs.LostMs, err = k.lostMs(ctx); err != nil {
		return nil, err
	}
	// Rewards are keyed by address bytes; genesis lists them by bech32
	// string, so gather per provider and sort by that string.
	byProvider := map[string]sdk.Coins{}
	var order []string
	err = k.Rewards.Walk(ctx, nil, func(key collections.Pair[sdk.AccAddress, string], v sdkmath.Int) (bool, error) {
		p, err := k.addressCodec.BytesToString(key.K1())
		if err != nil {
			return true, err
		}
		if _, ok := byProvider[p]; !ok {
			order = append(order, p)
		}
		byProvider[p] = append(byProvider[p], sdk.NewCoin(key.K2(), v))
		return false, nil
	})
	if err != nil {
		return nil, err
	}
	slices.Sort(order)
	for _, p := range order {
		gs.Rewards = append(gs.Rewards, types.ProviderRewards{Provider: p, Rewards: byProvider[p]})
	}
	return gs, nil
}
