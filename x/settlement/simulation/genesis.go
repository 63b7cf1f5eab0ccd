// Package simulation generates random x/settlement state and messages for the
// SDK simulator (simsx): a random valid genesis and gov params proposals.
package simulation

import (
	"math/rand"
	"slices"
	"strings"
	"time"

	sdk "github.com/cosmos/cosmos-sdk/types"
	"github.com/cosmos/cosmos-sdk/types/module"

	"github.com/idlegpu/idlegpu/x/settlement/types"
)

// RandomParams returns valid params spread over the ranges a real chain could
// use; audit fees are in the bond denom, the simulator's currency.
func RandomParams(r *rand.Rand, bondDenom string) types.Params {
	epoch := uint64(r.Intn(3600) + 60)
	sample := uint64(r.Intn(int(epoch/4)) + 1)
	// The draws keep the order and number they had before audits changed,
	// so every module's random stream after this one is unchanged.
	defaults := types.DefaultGPUModels()
	p := types.Params{
		EpochSeconds:          epoch,
		SampleIntervalSeconds: sample,
		MinSamplesRatioBps:    uint32(r.Intn(10_000) + 1),
		ProofGraceSeconds:     uint64(r.Intn(1800) + 1),
		MaxMissedEpochs:       uint32(r.Intn(10) + 1),
		TakeRateBps:           uint32(r.Intn(2_000)),
		ProofRetention:        uint64(r.Intn(5000) + 1),
		// Always through the H100, and the simulated model sim providers'
		// simulated GPUs are audited with.
		GpuModels:            append(slices.Clone(defaults[:3+r.Intn(len(defaults)-2)]), types.SimulatedModel()),
		AuditSamples:         uint32(r.Intn(10) + 1),
		AuditLatencySeconds:  uint64(r.Intn(600) + 1),
		AuditCooldownSeconds: uint64(r.Intn(72*3600) + 1),
		MaxMissesPerBlock:    uint32(r.Intn(1000) + 1),
		MaxPrunesPerBlock:    uint32(r.Intn(1000) + 1),
		AuditMaxSeconds:      uint64(r.Intn(7200) + 601),
		AuditProveSeconds:    uint64(r.Intn(3600) + 1),
		// Short enough that the simulator's block gaps (minutes to hours)
		// count as halts, so excused epochs and moved deadlines are
		// exercised. Derived, not drawn: a new draw would shift every
		// module's random stream after this one.
		HaltGapSeconds: 30 + sample%600,
		// Derived for the same reason.
		MaxAuditStepsPerBlock:     uint32(1 + sample%1000),
		AuditValiditySeconds:      3600 + epoch*(1+sample%48),
		AuditRequestFee:           sdk.NewCoins(sdk.NewInt64Coin(bondDenom, int64(1+sample%1000))),
		RandomAuditsPerDraw:       uint32(sample % 3),
		RandomAuditIntervalBlocks: 1 + sample%20,
		ExpectedBlockMillis:       1000 * (1 + sample%6),
		// Every denom x/offer's simulation may make a payment denom needs a
		// step payment (types.StepPaymentCovers). Derived, like the rest.
		ReliabilityStepPayment: stepPayment(bondDenom, int64(1_000+epoch*(1+sample%1000))),
	}
	// Derived: at least the misses that fail a lease, at most 64.
	p.MissWindowEpochs = p.MaxMissedEpochs + uint32(sample%uint64(65-p.MaxMissedEpochs))
	slices.SortFunc(p.GpuModels, func(a, b types.GPUModel) int { return strings.Compare(a.Model, b.Model) })
	// Every model's audit must fit audit_max (types.Params.Validate).
	for _, m := range p.GpuModels {
		if plan, err := p.AuditPlan(m); err == nil {
			p.AuditMaxSeconds = max(p.AuditMaxSeconds, uint64(plan.Allowance/time.Second))
		}
	}
	return p
}

// RandomizedGenState writes a random valid x/settlement genesis into simState.
func RandomizedGenState(simState *module.SimulationState) {
	gs := types.GenesisState{Params: RandomParams(simState.Rand, simState.BondDenom), NextAuditId: 1}
	simState.GenState[types.ModuleName] = simState.Cdc.MustMarshalJSON(&gs)
}

// stepPayment prices the bond denom and uusdc, x/offer's simulated payment
// denoms, at amount each.
func stepPayment(bondDenom string, amount int64) sdk.Coins {
	c := sdk.NewCoins(sdk.NewInt64Coin(bondDenom, amount))
	if bondDenom != "uusdc" {
		c = c.Add(sdk.NewInt64Coin("uusdc", amount))
	}
	return c
}
