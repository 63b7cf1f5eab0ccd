// Package simulation generates random x/offer state and messages for the
// SDK simulator (simsx): a random valid genesis, offers created, updated and closed by
// providers, and gov params proposals.
package simulation

import (
	"github.com/idlegpu/idlegpu/x/internal/check"
	"math/rand"
	"sort"

	"github.com/cosmos/cosmos-sdk/types/module"

	"github.com/idlegpu/idlegpu/x/offer/types"
)

// RandomParams returns valid params spread over the ranges a real chain could use.
func RandomParams(r *rand.Rand, bondDenom string) types.Params {
	denoms := []string{bondDenom}
	if r.Intn(2) == 0 && bondDenom != "uusdc" {
		denoms = append(denoms, "uusdc")
		sort.Strings(denoms)
	}
	return types.Params{
		PaymentDenoms:        denoms,
		MaxWindows:           uint32(r.Intn(64) + 1),
		MaxOffersPerProvider: uint32(r.Intn(1024) + 1),
		MaxGpusPerOffer:      uint32(r.Intn(check.MaxGPUsPerLease) + 1),
	}
}

// RandomizedGenState writes a random valid x/offer genesis into simState.
func RandomizedGenState(simState *module.SimulationState) {
	gs := types.GenesisState{Params: RandomParams(simState.Rand, simState.BondDenom), NextOfferId: 1}
	simState.GenState[types.ModuleName] = simState.Cdc.MustMarshalJSON(&gs)
}
