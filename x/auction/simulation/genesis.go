// Package simulation generates random x/auction state and messages for the
// SDK simulator (simsx): a random valid genesis and gov params proposals.
package simulation

import (
	"github.com/idlegpu/idlegpu/x/internal/check"
	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
	"math/rand"

	"github.com/cosmos/cosmos-sdk/types/module"

	"github.com/idlegpu/idlegpu/x/auction/types"
)

// RandomParams returns valid params spread over the ranges a real chain could
// use. The denom argument is unused; it keeps every module's generator alike.
func RandomParams(r *rand.Rand, _ string) types.Params {
	rule := types.CLEARING_RULE_SECOND_PRICE
	if r.Intn(2) == 0 {
		rule = types.CLEARING_RULE_FIRST_PRICE
	}
	bronze := uint32(r.Intn(5001))
	ceiling := int(providertypes.MaxReachableReliabilityBps)
	silver := bronze + uint32(r.Intn(ceiling-int(bronze)+1))
	gold := silver + uint32(r.Intn(ceiling-int(silver)+1))
	return types.Params{
		MaxClearingsPerBlock: uint32(r.Intn(1000) + 1),
		MaxBidsPerJob:        uint32(r.Intn(200) + 1),
		MaxCandidatesPerJob:  uint32(r.Intn(512) + 1),
		// Mostly on: with standing offers off only simulated bids clear jobs.
		IncludeStandingOffers:  r.Intn(5) != 0,
		ClearingRule:           rule,
		DefaultBidWindowBlocks: uint32(r.Intn(10)),
		MaxJobDurationSeconds:  uint64(r.Intn(2000*3600) + 1),
		StartTimeoutSeconds:    uint64(r.Intn(3600) + 1),
		TierMinReliability:     types.TierMinReliability{GoldBps: gold, SilverBps: silver, BronzeBps: bronze},
		MaxGpusPerJob:          uint32(r.Intn(check.MaxGPUsPerLease) + 1),
		// Not drawn: a new draw would shift every later module's random
		// stream (the simulator sends no wallet-signed messages yet).
		MaxSignedDeadlineSeconds: types.DefaultMaxSignedDeadlineSeconds,
		MaxNoncePrunesPerBlock:   types.DefaultMaxNoncePrunesPerBlock,
		// Not drawn either; the market simulation, which forms leases, sets
		// its own retention short enough to prune.
		RecordRetentionSeconds:  types.DefaultRecordRetentionSeconds,
		MaxRecordPrunesPerBlock: types.DefaultMaxRecordPrunesPerBlock,
	}
}

// RandomizedGenState writes a random valid x/auction genesis into simState.
func RandomizedGenState(simState *module.SimulationState) {
	gs := types.GenesisState{Params: RandomParams(simState.Rand, simState.BondDenom), NextJobId: 1, NextLeaseId: 1, NextBidSeq: 1}
	simState.GenState[types.ModuleName] = simState.Cdc.MustMarshalJSON(&gs)
}
