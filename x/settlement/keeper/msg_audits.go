package keeper

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"time"

	"cosmossdk.io/collections"
	errorsmod "cosmossdk.io/errors"

	sdk "github.com/cosmos/cosmos-sdk/types"

	offertypes "github.com/idlegpu/idlegpu/x/offer/types"
	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
	"github.com/idlegpu/idlegpu/x/settlement/audit"
	"github.com/idlegpu/idlegpu/x/settlement/types"
)

// OpenAudit challenges one GPU (docs/design.md#audits). The guardrails keep honest
// providers safe: only governance's auditors may open audits; the GPU must
// be the provider's, of a model in the table, and in no lease; the provider
// has no other live audit and the GPU none within audit_cooldown; the
// deadline leaves at least the model's reference time × audit_slack +
// audit_latency and at most audit_max_seconds. The fee is escrowed, and a GPU
// in an OPEN offer is held out of the market until the answer.
func (m msgServer) OpenAudit(ctx context.Context, msg *types.MsgOpenAudit) (*types.MsgOpenAuditResponse, error) {
	auditor, err := m.addressCodec.StringToBytes(msg.Auditor)
	if err != nil {
		return nil, errorsmod.Wrapf(types.ErrAuditorNotAllowed, "auditor: %v", err)
	}
	provider, err := m.addressCodec.StringToBytes(msg.Provider)
	if err != nil {
		return nil, errorsmod.Wrapf(types.ErrInvalidAudit, "provider: %v", err)
	}
	if err := msg.ValidateBasic(); err != nil {
		return nil, err
	}
	params, err := m.Params.Get(ctx)
	if err != nil {
		return nil, err
	}
	if !params.IsAuditor(msg.Auditor) {
		return nil, errorsmod.Wrapf(types.ErrAuditorNotAllowed, "%s is not in the auditors param", msg.Auditor)
	}
	model, offer, err := m.auditable(ctx, provider, msg, params)
	if err != nil {
		return nil, err
	}
	now := sdk.UnwrapSDKContext(ctx).BlockTime()
	least, most := now.Add(params.LeastAuditTime(model, msg.WorkUnits)), now.Add(params.AuditMax())
	if least.After(most) || msg.Deadline.Before(least) || msg.Deadline.After(most) {
		return nil, errorsmod.Wrapf(types.ErrAuditDeadline, "%d units on %s need a deadline in [%s, %s], got %s",
			msg.WorkUnits, model.Model, least, most, msg.Deadline)
	}
	if ok, err := m.offers.AcceptsDenom(ctx, msg.Fee.Denom); err != nil || !ok {
		return nil, errorsmod.Wrapf(types.ErrInvalidAudit, "fee denom %s is not a market currency", msg.Fee.Denom)
	}
	if err := m.bank.SendCoinsFromAccountToModule(ctx, auditor, types.ModuleName, sdk.NewCoins(msg.Fee)); err != nil {
		return nil, err
	}
	seq, err := m.AuditSeq.Next(ctx)
	if err != nil {
		return nil, err
	}
	a := types.Audit{
		Id: seq, Auditor: msg.Auditor, Provider: msg.Provider, GpuUuid: msg.GpuUuid, Model: model.Model,
		Workload: msg.Workload, Seed: msg.Seed, WorkUnits: msg.WorkUnits, Commitment: msg.Commitment, Fee: msg.Fee,
		OpenedAt: now, Deadline: msg.Deadline, AnswerBy: msg.Deadline, RevealBy: msg.Deadline.Add(params.AuditReveal()), Status: types.AUDIT_STATUS_OPEN,
	}
	// The GPU is held out of the market until the answer, whatever its
	// offer's state: occupied in its offer, and barred from new offers.
	if offer != nil {
		if err := m.offers.OccupyForAudit(ctx, offer.Id, []string{msg.GpuUuid}); err != nil {
			return nil, err
		}
		a.ReservedOfferId = offer.Id
	}
	if err := m.Held.Set(ctx, msg.GpuUuid); err != nil {
		return nil, err
	}
	if err := m.LiveAudit.Set(ctx, provider, a.Id); err != nil {
		return nil, err
	}
	if err := m.Cooldowns.Set(ctx, msg.GpuUuid, now); err != nil {
		return nil, err
	}
	if err := m.saveAudit(ctx, nil, a); err != nil {
		return nil, err
	}
	if err := sdk.UnwrapSDKContext(ctx).EventManager().EmitTypedEvent(&types.EventAuditOpened{
		AuditId: a.Id, Auditor: a.Auditor, Provider: a.Provider, GpuUuid: a.GpuUuid, Workload: a.Workload,
		Seed: a.Seed, WorkUnits: a.WorkUnits, Deadline: a.Deadline, Fee: a.Fee,
	}); err != nil {
		return nil, err
	}
	return &types.MsgOpenAuditResponse{AuditId: a.Id}, nil
}

// auditable checks the provider and GPU side of an opening and returns the
// GPU's model figures and the offer holding it (nil when none does).
func (k Keeper) auditable(ctx context.Context, provider sdk.AccAddress, msg *types.MsgOpenAudit, params types.Params) (types.GPUModel, *offertypes.Offer, error) {
	p, err := k.providers.Provider(ctx, provider)
	if err != nil {
		return types.GPUModel{}, nil, err
	}
	if p.Status != providertypes.PROVIDER_STATUS_ACTIVE {
		return types.GPUModel{}, nil, errorsmod.Wrapf(types.ErrNotAuditable, "provider %s is %s", msg.Provider, p.Status)
	}
	g, err := k.providers.GPU(ctx, msg.GpuUuid)
	if err != nil {
		return types.GPUModel{}, nil, err
	}
	if g.Provider != msg.Provider {
		return types.GPUModel{}, nil, errorsmod.Wrapf(types.ErrNotAuditable, "GPU %s is not %s's", msg.GpuUuid, msg.Provider)
	}
	model, ok := params.GPUModel(g.Model)
	if !ok {
		return types.GPUModel{}, nil, errorsmod.Wrapf(types.ErrNotAuditable, "model %q has no reference audit speed", g.Model)
	}
	switch has, err := k.LiveAudit.Has(ctx, provider); {
	case err != nil:
		return types.GPUModel{}, nil, err
	case has:
		return types.GPUModel{}, nil, errorsmod.Wrapf(types.ErrAuditPending, "%s", msg.Provider)
	}
	now := sdk.UnwrapSDKContext(ctx).BlockTime()
	last, err := k.Cooldowns.Get(ctx, msg.GpuUuid)
	switch {
	case err == nil && now.Before(last.Add(params.AuditCooldown())):
		return types.GPUModel{}, nil, errorsmod.Wrapf(types.ErrAuditCooldown, "GPU %s was audited at %s; next from %s",
			msg.GpuUuid, last, last.Add(params.AuditCooldown()))
	case err != nil && !errors.Is(err, collections.ErrNotFound):
		return types.GPUModel{}, nil, err
	}
	o, found, err := k.offers.OfferOfGPU(ctx, msg.GpuUuid)
	if err != nil || !found {
		return model, nil, err
	}
	if slices.Contains(o.OccupiedGpuUuids, msg.GpuUuid) {
		// A renter's GPU is busy with its job; but a provider renting its
		// own GPUs would stay out of audits forever, so a self-lease is
		// auditable (the GPU stays in the lease; nothing to reserve).
		self, err := k.selfLeased(ctx, provider, msg.GpuUuid)
		if err != nil || !self {
			return types.GPUModel{}, nil, errors.Join(err, errorsmod.Wrapf(types.ErrNotAuditable, "GPU %s is in a renter's lease", msg.GpuUuid))
		}
		return model, nil, nil
	}
	if o.Status != offertypes.OFFER_STATUS_OPEN && o.Status != offertypes.OFFER_STATUS_PAUSED {
		return model, nil, nil // a CLOSED offer keeps only leased GPUs
	}
	return model, &o, nil
}

// selfLeased reports whether the running lease holding the provider's GPU
// was rented by the provider's own operator or one of its agents
// (x/settlement/README.md, "Audits").
func (k Keeper) selfLeased(ctx context.Context, provider sdk.AccAddress, uuid string) (bool, error) {
	l, found, err := k.auction.RunningLeaseOfGPU(ctx, provider, uuid)
	if err != nil || !found {
		return false, err
	}
	renter, err := k.addressCodec.StringToBytes(l.Renter)
	if err != nil {
		return false, err
	}
	return k.providers.IsAuthorized(ctx, provider, renter)
}

// AnswerAudit records the provider's result; the GPU returns to the market.
func (m msgServer) AnswerAudit(ctx context.Context, msg *types.MsgAnswerAudit) (*types.MsgAnswerAuditResponse, error) {
	signer, err := m.addressCodec.StringToBytes(msg.Signer)
	if err != nil {
		return nil, errorsmod.Wrapf(types.ErrUnauthorized, "signer: %v", err)
	}
	a, err := m.audit(ctx, msg.AuditId)
	if err != nil {
		return nil, err
	}
	provider, err := m.addressCodec.StringToBytes(a.Provider)
	if err != nil {
		return nil, err
	}
	if ok, err := m.providers.IsAuthorized(ctx, provider, signer); err != nil || !ok {
		return nil, errorsmod.Wrapf(types.ErrUnauthorized, "%s may not act for %s", msg.Signer, a.Provider)
	}
	now := sdk.UnwrapSDKContext(ctx).BlockTime()
	answerBy, err := m.answerBy(ctx, a)
	if err != nil {
		return nil, err
	}
	switch {
	case a.Status != types.AUDIT_STATUS_OPEN:
		return nil, errorsmod.Wrapf(types.ErrAuditState, "audit %d is %s", a.Id, a.Status)
	case now.After(answerBy):
		return nil, errorsmod.Wrapf(types.ErrAuditState, "audit %d's deadline %s has passed", a.Id, answerBy)
	case len(msg.Result) != audit.ResultSize:
		return nil, errorsmod.Wrapf(types.ErrInvalidAudit, "result must be %d bytes, got %d", audit.ResultSize, len(msg.Result))
	}
	before := a
	if err := m.unreserve(ctx, &a); err != nil {
		return nil, err
	}
	a.Status, a.Result = types.AUDIT_STATUS_ANSWERED, msg.Result
	if err := m.saveAudit(ctx, &before, a); err != nil {
		return nil, err
	}
	if err := sdk.UnwrapSDKContext(ctx).EventManager().EmitTypedEvent(&types.EventAuditAnswered{AuditId: a.Id, Result: a.Result}); err != nil {
		return nil, err
	}
	return &types.MsgAnswerAuditResponse{}, nil
}

// RevealAudit opens the auditor's commitment after the answer and gives the
// verdict: a reveal that does not open the commitment pays the fee to the
// provider (griefing costs the auditor); a matching answer pays it to the
// provider; a different answer is fraud.
func (m msgServer) RevealAudit(ctx context.Context, msg *types.MsgRevealAudit) (*types.MsgRevealAuditResponse, error) {
	a, err := m.audit(ctx, msg.AuditId)
	if err != nil {
		return nil, err
	}
	if msg.Auditor != a.Auditor {
		return nil, errorsmod.Wrapf(types.ErrUnauthorized, "only audit %d's auditor %s may reveal", a.Id, a.Auditor)
	}
	now := sdk.UnwrapSDKContext(ctx).BlockTime()
	switch {
	case a.Status == types.AUDIT_STATUS_OPEN:
		// Revealing before the answer would hand the provider the result.
		return nil, errorsmod.Wrapf(types.ErrAuditState, "audit %d is not answered yet", a.Id)
	case a.Status != types.AUDIT_STATUS_ANSWERED:
		return nil, errorsmod.Wrapf(types.ErrAuditState, "audit %d is already %s", a.Id, a.Status)
	case now.After(a.RevealBy):
		return nil, errorsmod.Wrapf(types.ErrAuditState, "audit %d's reveal time ended at %s", a.Id, a.RevealBy)
	}
	params, err := m.Params.Get(ctx)
	if err != nil {
		return nil, err
	}
	verdict := types.AUDIT_STATUS_WRONG
	switch {
	case !types.Opens(a.Commitment, msg.Salt, msg.Expected):
		verdict = types.AUDIT_STATUS_BAD_REVEAL
	case bytes.Equal(msg.Expected, a.Result):
		verdict = types.AUDIT_STATUS_CORRECT
	}
	slashed, err := m.resolve(ctx, a, verdict, params)
	if err != nil {
		return nil, err
	}
	return &types.MsgRevealAuditResponse{Status: verdict, Slashed: slashed}, nil
}

// audit loads an audit or says it does not exist.
func (k Keeper) audit(ctx context.Context, id uint64) (types.Audit, error) {
	a, err := k.Audits.Get(ctx, id)
	if errors.Is(err, collections.ErrNotFound) {
		return a, errorsmod.Wrapf(types.ErrAuditNotFound, "audit %d", id)
	}
	return a, err
}

// answerBy is an audit's deadline moved by the chain's downtime since it
// opened (x/settlement/README.md, "Chain halts"): an answer is never refused, nor an
// audit timed out, for time the chain was not making blocks.
func (k Keeper) answerBy(ctx context.Context, a types.Audit) (time.Time, error) {
	by, err := k.HaltExtended(ctx, a.OpenedAt, a.Deadline)
	if err != nil {
		return time.Time{}, err
	}
	if by.Before(a.AnswerBy) {
		by = a.AnswerBy // never earlier than already granted
	}
	return by, nil
}
