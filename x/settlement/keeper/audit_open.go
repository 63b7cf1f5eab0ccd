package keeper

import (
	"context"
	"crypto/sha256"
	"encoding/binary"

	errorsmod "cosmossdk.io/errors"
	sdkmath "cosmossdk.io/math"

	sdk "github.com/cosmos/cosmos-sdk/types"

	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
	"github.com/idlegpu/idlegpu/x/settlement/audit"
	"github.com/idlegpu/idlegpu/x/settlement/types"
)

// auditModel is the table entry that sizes a GPU's audit: its registered
// model, or the development chains' simulated model for a simulated GPU
// (refused once the chain stops allowing simulated GPUs).
func (k Keeper) auditModel(ctx context.Context, g providertypes.GPU, params types.Params) (types.GPUModel, error) {
	name := g.Model
	if g.Simulated {
		allowed, err := k.providers.SimulatedGPUsAllowed(ctx)
		if err != nil {
			return types.GPUModel{}, err
		}
		if !allowed {
			return types.GPUModel{}, errorsmod.Wrapf(types.ErrNotAuditable, "%s is simulated and this is not a development chain", g.Uuid)
		}
		name = types.SimulatedGPUModel
	}
	m, ok := params.GPUModel(name)
	if !ok {
		return types.GPUModel{}, errorsmod.Wrapf(types.ErrNotAuditable, "model %q is not in the GPU model table", name)
	}
	return m, nil
}

// auditable checks that a GPU may be audited now: its provider ACTIVE, the
// GPU in no running lease (an audit never interrupts a renter, the
// provider's own leases included) and without a live audit.
func (k Keeper) auditable(ctx context.Context, g providertypes.GPU) (sdk.AccAddress, error) {
	provider, err := k.addressCodec.StringToBytes(g.Provider)
	if err != nil {
		return nil, err
	}
	p, err := k.providers.Provider(ctx, provider)
	if err != nil {
		return nil, err
	}
	if p.Status != providertypes.PROVIDER_STATUS_ACTIVE {
		return nil, errorsmod.Wrapf(types.ErrNotAuditable, "provider %s is %s", g.Provider, p.Status)
	}
	if _, leased, err := k.auction.RunningLeaseOfGPU(ctx, provider, g.Uuid); err != nil || leased {
		return nil, errorsmod.Wrapf(errorsWith(err, types.ErrNotAuditable), "GPU %s is in a lease", g.Uuid)
	}
	if live, err := k.LiveAudit.Has(ctx, g.Uuid); err != nil || live {
		return nil, errorsmod.Wrapf(errorsWith(err, types.ErrAuditPending), "GPU %s", g.Uuid)
	}
	return provider, nil
}

// errorsWith returns err when set, else the fallback.
func errorsWith(err, fallback error) error {
	if err != nil {
		return err
	}
	return fallback
}

// auditSeed draws an audit's seed from this block's header hash, which no
// party knows before the block is proposed: sha256("idlegpu/audit-seed" ‖
// header hash ‖ u64be(audit id)).
func auditSeed(ctx context.Context, id uint64) []byte {
	h := sha256.New()
	h.Write([]byte("idlegpu/audit-seed"))
	h.Write(sdk.UnwrapSDKContext(ctx).HeaderHash())
	h.Write(binary.BigEndian.AppendUint64(nil, id))
	return h.Sum(nil)
}

// openAudit opens an audit of g (already checked auditable) with the fee
// already escrowed: the chain's seed, the model's shape, the deadline rule
// (types.Params.AuditPlan), the GPU held out of the market until the
// verdict.
func (k Keeper) openAudit(ctx context.Context, g providertypes.GPU, requester string, fee sdk.Coin, reason types.AuditReason, params types.Params) (types.Audit, error) {
	m, err := k.auditModel(ctx, g, params)
	if err != nil {
		return types.Audit{}, err
	}
	plan, err := params.AuditPlan(m)
	if err != nil {
		return types.Audit{}, errorsmod.Wrap(types.ErrNotAuditable, err.Error())
	}
	lost, err := k.lostMs(ctx)
	if err != nil {
		return types.Audit{}, err
	}
	id, err := k.AuditSeq.Next(ctx)
	if err != nil {
		return types.Audit{}, err
	}
	if fee.Amount.IsNil() {
		fee.Amount = sdkmath.ZeroInt()
	}
	now := sdk.UnwrapSDKContext(ctx).BlockTime()
	a := types.Audit{
		Id: id, Requester: requester, Provider: g.Provider, GpuUuid: g.Uuid, Model: m.Model,
		Workload: audit.MemWalkV1Name, Seed: auditSeed(ctx, id), Fee: fee, Reason: reason,
		Shape: types.NewAuditShape(plan.Shape), ExpectedMs: uint64(plan.Expected.Milliseconds()), Samples: params.AuditSamples,
		OpenedAt: now, Deadline: now.Add(plan.Allowance), AnswerBy: now.Add(plan.Allowance), LostMsAtOpen: lost,
		Status: types.AUDIT_STATUS_OPEN,
	}
	if err := k.hold(ctx, g.Uuid); err != nil {
		return types.Audit{}, err
	}
	if err := k.LiveAudit.Set(ctx, g.Uuid, id); err != nil {
		return types.Audit{}, err
	}
	if err := k.Cooldowns.Set(ctx, g.Uuid, now); err != nil {
		return types.Audit{}, err
	}
	if err := k.saveAudit(ctx, nil, a); err != nil {
		return types.Audit{}, err
	}
	return a, sdk.UnwrapSDKContext(ctx).EventManager().EmitTypedEvent(&types.EventAuditOpened{
		AuditId: a.Id, Requester: a.Requester, Provider: a.Provider, GpuUuid: a.GpuUuid, Workload: a.Workload,
		Seed: a.Seed, Deadline: a.Deadline, Fee: a.Fee, Shape: a.Shape, Reason: a.Reason,
	})
}
