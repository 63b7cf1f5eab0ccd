// Package simulation generates random x/provider state and messages for the
// SDK simulator (simsx): a random valid genesis and gov params proposals.
package simulation

import (
	"math/rand"
	"time"

	"cosmossdk.io/math"

	sdk "github.com/cosmos/cosmos-sdk/types"
	"github.com/cosmos/cosmos-sdk/types/module"

	"github.com/idlegpu/idlegpu/x/provider/types"
)

// RandomParams returns valid params spread over the ranges a real chain could use.
func RandomParams(r *rand.Rand, bondDenom string) types.Params {
	return types.Params{
		MinStakePerGpu:        sdk.NewCoin(bondDenom, math.NewInt(r.Int63n(1_000_000_000)+1)),
		UnbondingPeriod:       time.Duration(r.Intn(30*24)+1) * time.Hour,
		JailDuration:          time.Duration(r.Intn(24*60)+1) * time.Minute,
		SlashFraud:            math.LegacyNewDecWithPrec(int64(r.Intn(100)+1), 2),
		SlashLiveness:         math.LegacyNewDecWithPrec(int64(r.Intn(100)+1), 3),
		FraudReporterShare:    math.LegacyNewDecWithPrec(int64(r.Intn(101)), 2),
		InitialReliabilityBps: uint32(r.Intn(10_001)),
		MaxGpusPerProvider:    uint32(r.Intn(4096) + 1),
	}
}

// RandomizedGenState writes a random valid x/provider genesis into simState.
func RandomizedGenState(simState *module.SimulationState) {
	gs := types.GenesisState{Params: RandomParams(simState.Rand, simState.BondDenom)}
	simState.GenState[types.ModuleName] = simState.Cdc.MustMarshalJSON(&gs)
}
