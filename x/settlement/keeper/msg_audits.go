package keeper

import (
	"context"
	"errors"

	"cosmossdk.io/collections"
	errorsmod "cosmossdk.io/errors"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/settlement/audit"
	"github.com/idlegpu/idlegpu/x/settlement/types"
)

// RequestAudit opens an audit of an idle GPU (docs/design.md#audits). Its
// provider asks for free when the GPU needs one: never verified, or its
// pass ending within a quarter of audit_validity. Anyone else pays at least
// audit_request_fee, escrowed for the provider whatever the verdict, for a
// GPU that has a pass (an unverified GPU is out of the market already) and
// was not audited within audit_cooldown. Nobody earns from a verdict.
func (m msgServer) RequestAudit(ctx context.Context, msg *types.MsgRequestAudit) (*types.MsgRequestAuditResponse, error) {
	requester, err := m.addressCodec.StringToBytes(msg.Requester)
	if err != nil {
		return nil, errorsmod.Wrapf(types.ErrInvalidAudit, "requester: %v", err)
	}
	if err := msg.ValidateBasic(); err != nil {
		return nil, err
	}
	params, err := m.Params.Get(ctx)
	if err != nil {
		return nil, err
	}
	g, err := m.providers.GPU(ctx, msg.GpuUuid)
	if err != nil {
		return nil, err
	}
	provider, err := m.auditable(ctx, g)
	if err != nil {
		return nil, err
	}
	now := sdk.UnwrapSDKContext(ctx).BlockTime()
	v, err := m.verification(ctx, g.Uuid)
	if err != nil {
		return nil, err
	}
	reason := types.AUDIT_REASON_REQUESTED
	if msg.Fee.IsNil() || msg.Fee.IsZero() {
		reason = types.AUDIT_REASON_REQUIRED
		if ok, err := m.providers.IsAuthorized(ctx, provider, requester); err != nil || !ok {
			return nil, errorsmod.Wrapf(errorsWith(err, types.ErrAuditFee), "only %s's operator or agents ask for its required audit without a fee", g.Provider)
		}
		ok, err := m.verified(ctx, g.Uuid, now)
		if err != nil {
			return nil, err
		}
		if renewFrom := v.VerifiedUntil.Add(-params.AuditValidity() / 4); ok && now.Before(renewFrom) {
			return nil, errorsmod.Wrapf(types.ErrNotAuditable, "GPU %s is verified until %s: its required audit opens from %s",
				g.Uuid, v.VerifiedUntil, renewFrom)
		}
	} else {
		least := params.AuditRequestFee.AmountOf(msg.Fee.Denom)
		if !least.IsPositive() || msg.Fee.Amount.LT(least) {
			return nil, errorsmod.Wrapf(types.ErrAuditFee, "fee %s; audit_request_fee is %s", msg.Fee, params.AuditRequestFee)
		}
		if ok, err := m.verified(ctx, g.Uuid, now); err != nil || !ok {
			return nil, errorsmod.Wrapf(errorsWith(err, types.ErrNotAuditable), "GPU %s has no valid pass: it is out of the market until its provider's audit", g.Uuid)
		}
		last, err := m.Cooldowns.Get(ctx, g.Uuid)
		switch {
		case err == nil && now.Before(last.Add(params.AuditCooldown())):
			return nil, errorsmod.Wrapf(types.ErrAuditCooldown, "GPU %s was audited at %s; next from %s", g.Uuid, last, last.Add(params.AuditCooldown()))
		case err != nil && !errors.Is(err, collections.ErrNotFound):
			return nil, err
		}
		if err := m.bank.SendCoinsFromAccountToModule(ctx, requester, types.ModuleName, sdk.NewCoins(msg.Fee)); err != nil {
			return nil, err
		}
	}
	a, err := m.openAudit(ctx, g, msg.Requester, msg.Fee, reason, params)
	if err != nil {
		return nil, err
	}
	return &types.MsgRequestAuditResponse{AuditId: a.Id}, nil
}

// actingAudit loads an audit and checks signer may act for its provider and
// that the GPU may still do audit work on this chain.
func (k Keeper) actingAudit(ctx context.Context, signerAddr string, id uint64) (types.Audit, sdk.AccAddress, error) {
	signer, err := k.addressCodec.StringToBytes(signerAddr)
	if err != nil {
		return types.Audit{}, nil, errorsmod.Wrapf(types.ErrUnauthorized, "signer: %v", err)
	}
	a, err := k.audit(ctx, id)
	if err != nil {
		return a, nil, err
	}
	provider, err := k.addressCodec.StringToBytes(a.Provider)
	if err != nil {
		return a, nil, err
	}
	if ok, err := k.providers.IsAuthorized(ctx, provider, signer); err != nil || !ok {
		return a, nil, errorsmod.Wrapf(errorsWith(err, types.ErrUnauthorized), "%s may not act for %s", signerAddr, a.Provider)
	}
	if g, err := k.providers.GPU(ctx, a.GpuUuid); err == nil && g.Simulated {
		if allowed, err := k.providers.SimulatedGPUsAllowed(ctx); err != nil || !allowed {
			return a, nil, errorsmod.Wrapf(errorsWith(err, types.ErrNotAuditable), "GPU %s is simulated and this is not a development chain", a.GpuUuid)
		}
	}
	return a, provider, nil
}

// AnswerAudit records the provider's transcript root. The samples it must
// open are drawn by the next block's hash, so the root is fixed first.
func (m msgServer) AnswerAudit(ctx context.Context, msg *types.MsgAnswerAudit) (*types.MsgAnswerAuditResponse, error) {
	if err := msg.ValidateBasic(); err != nil {
		return nil, err
	}
	a, _, err := m.actingAudit(ctx, msg.Signer, msg.AuditId)
	if err != nil {
		return nil, err
	}
	if a.Status != types.AUDIT_STATUS_OPEN {
		return nil, errorsmod.Wrapf(types.ErrAuditState, "audit %d is %s", a.Id, a.Status)
	}
	answerBy, err := m.movedBy(ctx, a.Deadline, a.LostMsAtOpen)
	if err != nil {
		return nil, err
	}
	sdkCtx := sdk.UnwrapSDKContext(ctx)
	now := sdkCtx.BlockTime()
	if now.After(answerBy) {
		return nil, errorsmod.Wrapf(types.ErrAuditState, "audit %d's deadline %s has passed", a.Id, answerBy)
	}
	params, err := m.Params.Get(ctx)
	if err != nil {
		return nil, err
	}
	lost, err := m.lostMs(ctx)
	if err != nil {
		return nil, err
	}
	before := a
	a.Status, a.Root, a.AnsweredHeight, a.LostMsAtAnswer = types.AUDIT_STATUS_ANSWERED, msg.Root, sdkCtx.BlockHeight(), lost
	a.ProveDeadline = now.Add(params.AuditProve())
	a.ProveBy = a.ProveDeadline
	if err := m.AwaitingEntropy.Set(ctx, collections.Join(a.AnsweredHeight, a.Id)); err != nil {
		return nil, err
	}
	if err := m.saveAudit(ctx, &before, a); err != nil {
		return nil, err
	}
	return &types.MsgAnswerAuditResponse{}, sdkCtx.EventManager().EmitTypedEvent(&types.EventAuditAnswered{
		AuditId: a.Id, Root: a.Root, AnsweredHeight: a.AnsweredHeight,
	})
}

// ProveAudit checks the openings of the sampled leaves and gives the
// verdict (types.AuditVerdict): malformed openings are refused and may be
// sent again until prove_by; a segment that recomputes to another state is
// fraud.
func (m msgServer) ProveAudit(ctx context.Context, msg *types.MsgProveAudit) (*types.MsgProveAuditResponse, error) {
	if err := msg.ValidateBasic(); err != nil {
		return nil, err
	}
	a, _, err := m.actingAudit(ctx, msg.Signer, msg.AuditId)
	if err != nil {
		return nil, err
	}
	samples, err := m.samples(ctx, a)
	if err != nil {
		return nil, err
	}
	proveBy, err := m.movedBy(ctx, a.ProveDeadline, a.LostMsAtAnswer)
	if err != nil {
		return nil, err
	}
	sdkCtx := sdk.UnwrapSDKContext(ctx)
	if sdkCtx.BlockTime().After(proveBy) {
		return nil, errorsmod.Wrapf(types.ErrAuditState, "audit %d's proof deadline %s has passed", a.Id, proveBy)
	}
	shape := a.Shape.Shape()
	sdkCtx.GasMeter().ConsumeGas(types.AuditProofGas(shape, uint32(len(samples))), "memwalk audit proof")
	verdict, err := types.AuditVerdict(a.Seed, a.Root, shape, samples, msg.Openings)
	if err != nil {
		return nil, err
	}
	params, err := m.Params.Get(ctx)
	if err != nil {
		return nil, err
	}
	slashed, err := m.resolve(ctx, a, verdict, params)
	if err != nil {
		return nil, err
	}
	return &types.MsgProveAuditResponse{Status: verdict, Slashed: slashed}, nil
}

// samples are the leaves an ANSWERED audit must open, once drawn.
func (k Keeper) samples(ctx context.Context, a types.Audit) ([]uint64, error) {
	if a.Status != types.AUDIT_STATUS_ANSWERED {
		return nil, errorsmod.Wrapf(types.ErrAuditState, "audit %d is %s", a.Id, a.Status)
	}
	if len(a.SampleEntropy) == 0 {
		return nil, errorsmod.Wrapf(types.ErrAuditState, "audit %d's samples are drawn by the block after %d", a.Id, a.AnsweredHeight)
	}
	return audit.SampleLeaves(a.SampleEntropy, a.Id, a.Root, a.Shape.Shape().Leaves(), a.Samples), nil
}

// audit loads an audit or says it does not exist.
func (k Keeper) audit(ctx context.Context, id uint64) (types.Audit, error) {
	a, err := k.Audits.Get(ctx, id)
	if errors.Is(err, collections.ErrNotFound) {
		return a, errorsmod.Wrapf(types.ErrAuditNotFound, "audit %d", id)
	}
	return a, err
}
