package keeper

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"cosmossdk.io/collections"
	sdkmath "cosmossdk.io/math"

	storetypes "github.com/cosmos/cosmos-sdk/store/v2/types"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/settlement/types"
)

// Migrator runs x/settlement's store migrations.
type Migrator struct{ k Keeper }

// NewMigrator returns the module's migrator.
func NewMigrator(k Keeper) Migrator { return Migrator{k: k} }

// Migrate1to2 moves the chain from commit-reveal audits by governance-named
// auditors to memwalk audits verified on chain (docs/design.md#audits,
// "Upgrade"):
//   - params: the auditors and audit_slack go; every model gets its
//     published memory bandwidth (an unknown model stops the upgrade: the
//     chain cannot size its audits); the new audit params take their
//     defaults; audit_reveal_seconds carries over as audit_prove_seconds.
//   - live audits (OPEN or ANSWERED under the old rules) end CANCELLED:
//     the fee goes back to the auditor who escrowed it, the GPU back to the
//     market; no verdict, so nobody is punished by the change.
//   - every registered GPU gets one audit_validity of grace to pass its
//     first memwalk audit (random audits may pick it sooner).
//   - the old per-provider live-audit and held-GPU indexes are emptied.
func (m Migrator) Migrate1to2(ctx sdk.Context) error {
	k := m.k
	params, err := k.Params.Get(ctx)
	if err != nil {
		return err
	}
	if params, err = migrateParams(params); err != nil {
		return err
	}
	if err := k.Params.Set(ctx, params); err != nil {
		return err
	}
	if err := m.cancelLiveAudits(ctx, params); err != nil {
		return err
	}
	for _, prefix := range []collections.Prefix{types.LiveAuditKey, types.HeldKey} {
		if err := m.clearPrefix(ctx, prefix.Bytes()); err != nil {
			return err
		}
	}
	until := sdk.UnwrapSDKContext(ctx).BlockTime().Add(params.AuditValidity())
	first, found, err := k.providers.GPUAtOrAfter(ctx, "")
	for g := first; err == nil && found; {
		if err = k.GrantPass(ctx, g.Uuid, until); err != nil {
			return err
		}
		g, found, err = k.providers.GPUAtOrAfter(ctx, g.Uuid+"\x00")
		found = found && g.Uuid > first.Uuid // wrapped around: done
	}
	return err
}

// migrateParams fills the memwalk params of a version-1 params value.
func migrateParams(p types.Params) (types.Params, error) {
	d := types.DefaultParams()
	var unknown []string
	for i, m := range p.GpuModels {
		if known, ok := d.GPUModel(m.Model); ok {
			p.GpuModels[i].MemoryBandwidthGbps = known.MemoryBandwidthGbps
		} else if m.MemoryBandwidthGbps == 0 {
			unknown = append(unknown, m.Model)
		}
	}
	if len(unknown) > 0 {
		return p, fmt.Errorf("no published memory bandwidth for %s: add memory_bandwidth_gbps to the upgrade", strings.Join(unknown, ", "))
	}
	if p.AuditProveSeconds == 0 {
		p.AuditProveSeconds = d.AuditProveSeconds
	}
	p.AuditSamples, p.AuditValiditySeconds, p.AuditRequestFee = d.AuditSamples, d.AuditValiditySeconds, d.AuditRequestFee
	p.RandomAuditsPerDraw, p.RandomAuditIntervalBlocks, p.ExpectedBlockMillis = d.RandomAuditsPerDraw, d.RandomAuditIntervalBlocks, d.ExpectedBlockMillis
	for _, m := range p.GpuModels {
		if plan, err := p.AuditPlan(m); err == nil {
			p.AuditMaxSeconds = max(p.AuditMaxSeconds, uint64(plan.Allowance/time.Second))
		}
	}
	// Validated by today's rules, so the fields later versions add get their
	// defaults here too (Migrate2to3 keeps them).
	if p.MissWindowEpochs == 0 {
		p.MissWindowEpochs = max(d.MissWindowEpochs, p.MaxMissedEpochs)
	}
	return p, p.Validate()
}

// cancelLiveAudits ends every commit-reveal audit still live: fee refunded,
// GPU freed, status CANCELLED (pruned after the usual retention).
func (m Migrator) cancelLiveAudits(ctx context.Context, params types.Params) error {
	k := m.k
	var live []types.Audit
	err := k.Audits.Walk(ctx, nil, func(_ uint64, a types.Audit) (bool, error) {
		if a.IsLive() {
			live = append(live, a)
		}
		return false, nil
	})
	if err != nil {
		return err
	}
	now := sdk.UnwrapSDKContext(ctx).BlockTime()
	for _, a := range live {
		if a.Fee.IsPositive() {
			to, err := k.addressCodec.StringToBytes(a.Requester)
			if err != nil {
				return fmt.Errorf("audit %d: auditor: %w", a.Id, err)
			}
			if err := k.bank.SendCoinsFromModuleToAccount(ctx, types.ModuleName, to, sdk.NewCoins(a.Fee)); err != nil {
				return err
			}
		}
		if a.ReservedOfferId != 0 {
			o, found, err := k.offers.OfferOfGPU(ctx, a.GpuUuid)
			if err != nil {
				return err
			}
			if found && o.Id == a.ReservedOfferId && slices.Contains(o.OccupiedGpuUuids, a.GpuUuid) {
				if err := k.offers.VacateGPUs(ctx, o.Id, []string{a.GpuUuid}); err != nil {
					return err
				}
			}
		}
		before := a
		a.Status, a.ReservedOfferId, a.ResolvedAt, a.PruneAt = types.AUDIT_STATUS_CANCELLED, 0, now, now.Add(params.Retention(params.EpochSeconds))
		if err := k.saveAudit(ctx, &before, a); err != nil {
			return err
		}
		if err := sdk.UnwrapSDKContext(ctx).EventManager().EmitTypedEvent(&types.EventAuditResolved{
			AuditId: a.Id, Status: a.Status, Provider: a.Provider, Requester: a.Requester, FeePaidTo: a.Requester,
			Slashed: sdk.Coin{Amount: sdkmath.ZeroInt()}, GpuUuid: a.GpuUuid,
		}); err != nil {
			return err
		}
	}
	return nil
}

// clearPrefix deletes every key under a retired prefix.
func (m Migrator) clearPrefix(ctx context.Context, prefix []byte) error {
	store := m.k.storeService.OpenKVStore(ctx)
	it, err := store.Iterator(prefix, storetypes.PrefixEndBytes(prefix))
	if err != nil {
		return err
	}
	var keys [][]byte
	for ; it.Valid(); it.Next() {
		keys = append(keys, slices.Clone(it.Key()))
	}
	if err := it.Close(); err != nil {
		return err
	}
	for _, key := range keys {
		if err := store.Delete(key); err != nil {
			return err
		}
	}
	return nil
}
