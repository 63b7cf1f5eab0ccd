package simulation

import (
	"context"
	"crypto/sha256"
	"math/rand"
	"slices"
	"sort"

	"cosmossdk.io/collections"
	sdkmath "cosmossdk.io/math"

	"github.com/cosmos/cosmos-sdk/testutil/simsx"
	sdk "github.com/cosmos/cosmos-sdk/types"
	simtypes "github.com/cosmos/cosmos-sdk/types/simulation"

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

// simUnits keeps the simulator's audits small (one unit ≈ 12 ms on a CPU).
const simUnits = 1

// simSalt derives the sim auditor's salt from the seed, so the reveal
// factory can rebuild what the opening committed to; a real auditor keeps a
// random salt secret (idlegpud audit plan).
func simSalt(seed []byte) [32]byte { return sha256.Sum256(append([]byte("sim-salt"), seed...)) }

// RandomAuditors picks one to three sim accounts as auditors, sorted.
func RandomAuditors(r *rand.Rand, accs []simtypes.Account) []string {
	if len(accs) == 0 {
		return nil
	}
	n := min(len(accs), r.Intn(3)+1)
	var out []string
	for _, i := range r.Perm(len(accs))[:n] {
		out = append(out, accs[i].Address.String())
	}
	sort.Strings(out)
	return out
}

// MsgOpenAuditFactory has a sim auditor audit an idle GPU of an ACTIVE sim
// provider with the latest deadline allowed (the simulator's blocks are far
// apart) and a fee from its bond-denom balance.
func MsgOpenAuditFactory(k keeper.Keeper, providers Providers, gpus ProviderGPUs, offers Offers) simsx.SimMsgFactoryFn[*types.MsgOpenAudit] {
	return func(ctx context.Context, testData *simsx.ChainDataSource, reporter simsx.SimulationReporter) ([]simsx.SimAccount, *types.MsgOpenAudit) {
		params, err := k.Params.Get(ctx)
		if err != nil || len(params.Auditors) == 0 {
			reporter.Skip("no auditors")
			return nil, nil
		}
		r := testData.Rand()
		auditorAddr := params.Auditors[r.Intn(len(params.Auditors))]
		if !testData.HasAccount(auditorAddr) {
			reporter.Skip("the auditor is not a sim account")
			return nil, nil
		}
		auditor := testData.GetAccount(reporter, auditorAddr)
		fee := auditor.LiquidBalance().RandSubsetCoin(reporter, sdk.DefaultBondDenom)
		if reporter.IsSkipped() {
			return nil, nil
		}
		now := sdk.UnwrapSDKContext(ctx).BlockTime()
		var cands []providertypes.GPU
		for _, acc := range testData.AllAccounts() {
			p, err := providers.Provider(ctx, acc.Address)
			if err != nil || p.Status != providertypes.PROVIDER_STATUS_ACTIVE {
				continue
			}
			if has, _ := k.LiveAudit.Has(ctx, acc.Address); has {
				continue
			}
			list, err := gpus.GPUs(ctx, acc.Address)
			if err != nil {
				continue
			}
			for _, g := range list {
				if last, err := k.Cooldowns.Get(ctx, g.Uuid); err == nil && now.Before(last.Add(params.AuditCooldown())) {
					continue
				}
				if o, found, err := offers.OfferOfGPU(ctx, g.Uuid); err != nil || (found && slices.Contains(o.OccupiedGpuUuids, g.Uuid)) {
					continue
				}
				if _, ok := params.GPUModel(g.Model); ok {
					cands = append(cands, g)
				}
			}
		}
		if len(cands) == 0 {
			reporter.Skip("no idle GPU to audit")
			return nil, nil
		}
		g := cands[r.Intn(len(cands))]
		model, _ := params.GPUModel(g.Model)
		seed := sha256.Sum256([]byte{byte(r.Intn(256)), byte(r.Intn(256)), byte(r.Intn(256)), byte(r.Intn(256))})
		expected, err := audit.MatMulV1{}.Run(ctx, seed[:], simUnits)
		if err != nil {
			reporter.Skip(err.Error())
			return nil, nil
		}
		c := audit.Commitment(simSalt(seed[:]), expected)
		return []simsx.SimAccount{auditor}, &types.MsgOpenAudit{
			Auditor: auditorAddr, Provider: g.Provider, GpuUuid: g.Uuid, Workload: audit.MatMulV1Name, Seed: seed[:],
			WorkUnits: simUnits, Commitment: c[:], Deadline: now.Add(max(params.AuditMax(), params.LeastAuditTime(model, simUnits))), Fee: fee,
		}
	}
}

// MsgAnswerAuditFactory answers an OPEN audit as the provider's operator:
// mostly with the workload's true result, sometimes with a wrong one (a
// spoofed GPU), so the simulator walks both verdicts.
func MsgAnswerAuditFactory(k keeper.Keeper) simsx.SimMsgFactoryFn[*types.MsgAnswerAudit] {
	return func(ctx context.Context, testData *simsx.ChainDataSource, reporter simsx.SimulationReporter) ([]simsx.SimAccount, *types.MsgAnswerAudit) {
		a, ok := liveAudit(ctx, k, testData, types.AUDIT_STATUS_OPEN, func(a types.Audit) string { return a.Provider })
		if !ok {
			reporter.Skip("no open audit of a sim provider")
			return nil, nil
		}
		result, err := audit.MatMulV1{}.Run(ctx, a.Seed, a.WorkUnits)
		if err != nil {
			reporter.Skip(err.Error())
			return nil, nil
		}
		if testData.Rand().Intn(10) == 0 {
			result[0] ^= 1
		}
		op := testData.GetAccount(reporter, a.Provider)
		return []simsx.SimAccount{op}, &types.MsgAnswerAudit{Signer: a.Provider, AuditId: a.Id, Result: result[:]}
	}
}

// MsgRevealAuditFactory reveals an ANSWERED audit as its auditor: mostly
// the true opening, sometimes a wrong one (which costs the auditor the fee).
func MsgRevealAuditFactory(k keeper.Keeper) simsx.SimMsgFactoryFn[*types.MsgRevealAudit] {
	return func(ctx context.Context, testData *simsx.ChainDataSource, reporter simsx.SimulationReporter) ([]simsx.SimAccount, *types.MsgRevealAudit) {
		a, ok := liveAudit(ctx, k, testData, types.AUDIT_STATUS_ANSWERED, func(a types.Audit) string { return a.Auditor })
		if !ok {
			reporter.Skip("no answered audit of a sim auditor")
			return nil, nil
		}
		expected, err := audit.MatMulV1{}.Run(ctx, a.Seed, a.WorkUnits)
		if err != nil {
			reporter.Skip(err.Error())
			return nil, nil
		}
		salt := simSalt(a.Seed)
		if testData.Rand().Intn(10) == 0 {
			salt[0] ^= 1
		}
		auditor := testData.GetAccount(reporter, a.Auditor)
		return []simsx.SimAccount{auditor}, &types.MsgRevealAudit{Auditor: a.Auditor, AuditId: a.Id, Salt: salt[:], Expected: expected[:]}
	}
}

// liveAudit picks an audit in status whose acting party is a sim account.
func liveAudit(ctx context.Context, k keeper.Keeper, testData *simsx.ChainDataSource, status types.AuditStatus, party func(types.Audit) string) (types.Audit, bool) {
	var found []types.Audit
	_ = k.Audits.Walk(ctx, nil, func(_ uint64, a types.Audit) (bool, error) {
		if a.Status == status && testData.HasAccount(party(a)) {
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
