// Package simulation generates random x/provider state and messages for the
// SDK simulator (simsx): a random valid genesis and gov params proposals.
package simulation

import (
	"math/rand"

	"cosmossdk.io/math"

	sdk "github.com/cosmos/cosmos-sdk/types"
	"github.com/cosmos/cosmos-sdk/types/module"

	"github.com/idlegpu/idlegpu/x/provider/types"
)

// RandomParams returns valid params spread over the ranges a real chain could
// use, on a development chain.
func RandomParams(r *rand.Rand, bondDenom string) types.Params {
	return types.Params{
		MinStakePerGpu:         sdk.NewCoin(bondDenom, math.NewInt(r.Int63n(1_000_000_000)+1)),
		UnbondingPeriodSeconds: uint64(r.Intn(30*24*3600) + 1),
		JailDurationSeconds:    uint64(r.Intn(24*3600) + 1),
		SlashFraudBps:          uint32(r.Intn(10_000) + 1),
		SlashLivenessBps:       uint32(r.Intn(1_000) + 1),
		FraudReporterShareBps:  uint32(r.Intn(10_001)),
		InitialReliabilityBps:  uint32(r.Intn(10_000) + 1),
		MaxGpusPerProvider:     uint32(r.Intn(4096) + 1),
		MaxGpusPerMsg:          uint32(r.Intn(128) + 1),
		MaxAgents:              uint32(r.Intn(16)),
		MaxUnbondingEntries:    uint32(r.Intn(10) + 1),
		MaxUnbondingsPerBlock:  uint32(r.Intn(500) + 1),
		// The simulator is a development chain: its providers register
		// simulated GPUs, whose audits run on the CPU.
		AllowSimulatedGpus: true,
	}
}

// RandomizedGenState writes a random valid x/provider genesis into simState.
func RandomizedGenState(simState *module.SimulationState) {
	gs := types.GenesisState{Params: RandomParams(simState.Rand, simState.BondDenom), NextUnbondingId: 1}
	simState.GenState[types.ModuleName] = simState.Cdc.MustMarshalJSON(&gs)
}
