// Package simulation generates random x/settlement state and messages for the
// SDK simulator (simsx): a random valid genesis and gov params proposals.
package simulation

import (
	"math/rand"

	"github.com/cosmos/cosmos-sdk/types/module"

	"github.com/idlegpu/idlegpu/x/settlement/types"
)

// RandomParams returns valid params spread over the ranges a real chain could
// use. The denom argument is unused; it keeps every module's generator alike.
func RandomParams(r *rand.Rand, _ string) types.Params {
	epoch := uint64(r.Intn(3600) + 60)
	sample := uint64(r.Intn(int(epoch/4)) + 1)
	models := types.DefaultGPUModels()
	return types.Params{
		EpochSeconds:          epoch,
		SampleIntervalSeconds: sample,
		MinSamplesRatioBps:    uint32(r.Intn(10_000) + 1),
		ProofGraceSeconds:     uint64(r.Intn(1800) + 1),
		MaxMissedEpochs:       uint32(r.Intn(10) + 1),
		TakeRateBps:           uint32(r.Intn(2_000)),
		ProofRetention:        uint64(r.Intn(5000) + 1),
		// Always through the H100, the model sim providers register.
		GpuModels:            models[:3+r.Intn(len(models)-2)],
		AuditSlack:           uint32(r.Intn(10) + 1),
		AuditLatencySeconds:  uint64(r.Intn(600) + 1),
		AuditCooldownSeconds: uint64(r.Intn(72*3600) + 1),
		MaxMissesPerBlock:    uint32(r.Intn(1000) + 1),
		MaxPrunesPerBlock:    uint32(r.Intn(1000) + 1),
		AuditMaxSeconds:      uint64(r.Intn(7200) + 601),
		AuditRevealSeconds:   uint64(r.Intn(3600) + 1),
		// Short enough that the simulator's block gaps (minutes to hours)
		// count as halts, so excused epochs and moved deadlines are
		// exercised. Derived, not drawn: a new draw would shift every
		// module's random stream after this one.
		HaltGapSeconds: 30 + sample%600,
		// Derived for the same reason.
		MaxAuditStepsPerBlock: uint32(1 + sample%1000),
	}
}

// RandomizedGenState writes a random valid x/settlement genesis into simState.
func RandomizedGenState(simState *module.SimulationState) {
	gs := types.GenesisState{Params: RandomParams(simState.Rand, simState.BondDenom), NextAuditId: 1}
	gs.Params.Auditors = RandomAuditors(simState.Rand, simState.Accounts)
	simState.GenState[types.ModuleName] = simState.Cdc.MustMarshalJSON(&gs)
}
