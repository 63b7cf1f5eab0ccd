package simulation

import (
	"context"
	"slices"
	"sync"

	"cosmossdk.io/collections"
	sdkmath "cosmossdk.io/math"

	"github.com/cosmos/cosmos-sdk/testutil/simsx"
	sdk "github.com/cosmos/cosmos-sdk/types"

	offertypes "github.com/idlegpu/idlegpu/x/offer/types"
	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
	"github.com/idlegpu/idlegpu/x/settlement/audit"
	"github.com/idlegpu/idlegpu/x/settlement/keeper"
	"github.com/idlegpu/idlegpu/x/settlement/types"
)

// Providers is what the audit factories read of x/provider.
type Providers interface {
	Provider(ctx context.Context, addr sdk.AccAddress) (providertypes.Provider, error)
	GPU(ctx context.Context, uuid string) (providertypes.GPU, error)
}

// ProviderGPUs lists a provider's GPUs (x/provider's keeper has it).
type ProviderGPUs interface {
	GPUs(ctx context.Context, provider sdk.AccAddress) ([]providertypes.GPU, error)
}

// Offers is what the audit factories read of x/offer.
type Offers interface {
	OfferOfGPU(ctx context.Context, uuid string) (offertypes.Offer, bool, error)
}

// Transcripts keeps the transcripts sim providers answered with, so the
// proof factory can open their sampled leaves, as an agent keeps its own.
type Transcripts struct {
	mu sync.Mutex
	m  map[uint64]*types.AuditTranscript
}

// NewTranscripts returns an empty store.
func NewTranscripts() *Transcripts { return &Transcripts{m: map[uint64]*types.AuditTranscript{}} }

// MsgRequestAuditFactory asks for an audit of an idle GPU of an ACTIVE sim
// provider: its required audit (by the operator, no fee) when the GPU needs
// one, else another sim account's paid audit.
func MsgRequestAuditFactory(k keeper.Keeper, providers Providers, gpus ProviderGPUs, offers Offers) simsx.SimMsgFactoryFn[*types.MsgRequestAudit] {
	return func(ctx context.Context, testData *simsx.ChainDataSource, reporter simsx.SimulationReporter) ([]simsx.SimAccount, *types.MsgRequestAudit) {
		params, err := k.Params.Get(ctx)
		if err != nil {
			reporter.Skip(err.Error())
			return nil, nil
		}
		now := sdk.UnwrapSDKContext(ctx).BlockTime()
		var cands []providertypes.GPU
		for _, acc := range testData.AllAccounts() {
			p, err := providers.Provider(ctx, acc.Address)
			if err != nil || p.Status != providertypes.PROVIDER_STATUS_ACTIVE {
				continue
			}
			list, err := gpus.GPUs(ctx, acc.Address)
			if err != nil {
				continue
			}
			for _, g := range list {
				if live, _ := k.LiveAudit.Has(ctx, g.Uuid); live {
					continue
				}
				if o, found, err := offers.OfferOfGPU(ctx, g.Uuid); err != nil || (found && slices.Contains(o.OccupiedGpuUuids, g.Uuid)) {
					continue
				}
				cands = append(cands, g)
			}
		}
		if len(cands) == 0 {
			reporter.Skip("no idle GPU to audit")
			return nil, nil
		}
		r := testData.Rand()
		g := cands[r.Intn(len(cands))]
		v, err := k.Verifications.Get(ctx, g.Uuid)
		if err != nil || !v.VerifiedUntil.After(now.Add(params.AuditValidity()/4)) {
			op := testData.GetAccount(reporter, g.Provider)
			return []simsx.SimAccount{op}, &types.MsgRequestAudit{Requester: g.Provider, GpuUuid: g.Uuid}
		}
		if last, err := k.Cooldowns.Get(ctx, g.Uuid); err == nil && now.Before(last.Add(params.AuditCooldown())) {
			reporter.Skip("GPU in its audit cooldown")
			return nil, nil
		}
		payer := testData.AnyAccount(reporter, simsx.WithSpendableBalance())
		least := params.AuditRequestFee[0]
		if reporter.IsSkipped() || payer.LiquidBalance().AmountOf(least.Denom).LT(least.Amount) {
			reporter.Skip("no account can pay the audit fee")
			return nil, nil
		}
		return []simsx.SimAccount{payer}, &types.MsgRequestAudit{Requester: payer.AddressBech32, GpuUuid: g.Uuid, Fee: least}
	}
}

// MsgAnswerAuditFactory answers an OPEN audit as the provider's operator:
// mostly with the true transcript computed by the CPU reference, sometimes
// with made-up states (a GPU that skipped the work), which its proof then
// shows WRONG.
func MsgAnswerAuditFactory(k keeper.Keeper, ts *Transcripts) simsx.SimMsgFactoryFn[*types.MsgAnswerAudit] {
	return func(ctx context.Context, testData *simsx.ChainDataSource, reporter simsx.SimulationReporter) ([]simsx.SimAccount, *types.MsgAnswerAudit) {
		a, ok := liveAudit(ctx, k, testData, types.AUDIT_STATUS_OPEN)
		if !ok {
			reporter.Skip("no open audit of a sim provider")
			return nil, nil
		}
		shape := a.Shape.Shape()
		var states audit.States
		if r := testData.Rand(); r.Intn(10) == 0 {
			states = make(audit.States, shape.Leaves()*audit.StateBytes)
			_, _ = r.Read(states)
		} else {
			var err error
			if states, err = audit.Run(ctx, a.Seed, shape); err != nil {
				reporter.Skip(err.Error())
				return nil, nil
			}
		}
		t := types.NewAuditTranscript(states)
		ts.mu.Lock()
		ts.m[a.Id] = t
		ts.mu.Unlock()
		op := testData.GetAccount(reporter, a.Provider)
		return []simsx.SimAccount{op}, &types.MsgAnswerAudit{Signer: a.Provider, AuditId: a.Id, Root: t.Root()}
	}
}

// MsgProveAuditFactory opens the sampled leaves of an ANSWERED audit from
// the transcript its answer kept.
func MsgProveAuditFactory(k keeper.Keeper, ts *Transcripts) simsx.SimMsgFactoryFn[*types.MsgProveAudit] {
	return func(ctx context.Context, testData *simsx.ChainDataSource, reporter simsx.SimulationReporter) ([]simsx.SimAccount, *types.MsgProveAudit) {
		a, ok := liveAudit(ctx, k, testData, types.AUDIT_STATUS_ANSWERED)
		if !ok || len(a.SampleEntropy) == 0 {
			reporter.Skip("no answered audit with drawn samples")
			return nil, nil
		}
		ts.mu.Lock()
		t := ts.m[a.Id]
		delete(ts.m, a.Id)
		ts.mu.Unlock()
		if t == nil {
			reporter.Skip("the answer's transcript is gone")
			return nil, nil
		}
		shape := a.Shape.Shape()
		msg := &types.MsgProveAudit{Signer: a.Provider, AuditId: a.Id}
		for _, leaf := range audit.SampleLeaves(a.SampleEntropy, a.Id, a.Root, shape.Leaves(), a.Samples) {
			msg.Openings = append(msg.Openings, t.Opening(shape, leaf))
		}
		op := testData.GetAccount(reporter, a.Provider)
		return []simsx.SimAccount{op}, msg
	}
}

// liveAudit picks an audit in status whose provider is a sim account.
func liveAudit(ctx context.Context, k keeper.Keeper, testData *simsx.ChainDataSource, status types.AuditStatus) (types.Audit, bool) {
	var found []types.Audit
	_ = k.Audits.Walk(ctx, nil, func(_ uint64, a types.Audit) (bool, error) {
		if a.Status == status && testData.HasAccount(a.Provider) {
			found = append(found, a)
		}
		return false, nil
	})
	if len(found) == 0 {
		return types.Audit{}, false
	}
	return found[testData.Rand().Intn(len(found))], true
}

// MsgClaimRewardsFactory claims every reward of a sim provider that has some.
func MsgClaimRewardsFactory(k keeper.Keeper) simsx.SimMsgFactoryFn[*types.MsgClaimRewards] {
	return func(ctx context.Context, testData *simsx.ChainDataSource, reporter simsx.SimulationReporter) ([]simsx.SimAccount, *types.MsgClaimRewards) {
		var owners []string
		_ = k.Rewards.Walk(ctx, nil, func(key collections.Pair[sdk.AccAddress, string], v sdkmath.Int) (bool, error) {
			addr := key.K1().String()
			if v.IsPositive() && testData.HasAccount(addr) && !slices.Contains(owners, addr) {
				owners = append(owners, addr)
			}
			return false, nil
		})
		if len(owners) == 0 {
			reporter.Skip("no sim provider has rewards")
			return nil, nil
		}
		owner := owners[testData.Rand().Intn(len(owners))]
		return []simsx.SimAccount{testData.GetAccount(reporter, owner)}, &types.MsgClaimRewards{Operator: owner}
	}
}
