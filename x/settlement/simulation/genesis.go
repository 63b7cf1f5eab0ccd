// Package simulation generates random x/settlement state and messages for the
// SDK simulator (simsx): a random valid genesis and gov params proposals.
package simulation

import (
	"math/rand"
	"time"

	"cosmossdk.io/math"

	"github.com/cosmos/cosmos-sdk/types/module"

	"github.com/idlegpu/idlegpu/x/settlement/types"
)

// RandomParams returns valid params spread over the ranges a real chain could
// use. The denom argument is unused; it keeps every module's generator alike.
func RandomParams(r *rand.Rand, _ string) types.Params {
	epoch := uint64(r.Intn(3600) + 60)
	sample := time.Duration(r.Intn(int(epoch/4))+1) * time.Second
	models := types.DefaultGPUModels()
	return types.Params{
		EpochSeconds:    epoch,
		SampleInterval:  sample,
		MinSamplesRatio: math.LegacyNewDecWithPrec(int64(r.Intn(100)+1), 2),
		ProofGrace:      time.Duration(r.Intn(1800)+1) * time.Second,
		MaxMissedEpochs: uint32(r.Intn(10) + 1),
		TakeRate:        math.LegacyNewDecWithPrec(int64(r.Intn(20)), 2),
		ProofRetention:  uint64(r.Intn(5000) + 1),
		GpuModels:       models[:r.Intn(len(models)+1)],
		AuditSlack:      uint32(r.Intn(10) + 1),
		AuditLatency:    time.Duration(r.Intn(600)+1) * time.Second,
		AuditCooldown:   time.Duration(r.Intn(72)+1) * time.Hour,
	}
}

// RandomizedGenState writes a random valid x/settlement genesis into simState.
func RandomizedGenState(simState *module.SimulationState) {
	gs := types.GenesisState{Params: RandomParams(simState.Rand, simState.BondDenom)}
	simState.GenState[types.ModuleName] = simState.Cdc.MustMarshalJSON(&gs)
}
