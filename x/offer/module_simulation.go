package offer

import (
	"github.com/cosmos/cosmos-sdk/testutil/simsx"
	"github.com/cosmos/cosmos-sdk/types/module"
	simtypes "github.com/cosmos/cosmos-sdk/types/simulation"

	"github.com/idlegpu/idlegpu/x/offer/simulation"
	"github.com/idlegpu/idlegpu/x/offer/types"
)

var _ module.AppModuleSimulation = AppModule{}

// GenerateGenesisState writes a random valid genesis for the simulator.
func (AppModule) GenerateGenesisState(simState *module.SimulationState) {
	simulation.RandomizedGenState(simState)
}

// RegisterStoreDecoder lets the simulator print store diffs readably.
func (am AppModule) RegisterStoreDecoder(sdr simtypes.StoreDecoderRegistry) {
	sdr[types.StoreKey] = simtypes.NewStoreDecoderFuncFromCollectionsSchema(am.keeper.Schema)
}

// ProposalMsgsX registers the gov proposals the simulator may submit.
func (AppModule) ProposalMsgsX(weights simsx.WeightSource, reg simsx.Registry) {
	reg.Add(weights.Get("msg_update_offer_params", 50), simulation.MsgUpdateParamsFactory())
}

// WeightedOperations returns nothing: simsx uses WeightedOperationsX, which
// the module adds with its first user message.
func (AppModule) WeightedOperations(module.SimulationState) []simtypes.WeightedOperation {
	return nil
}
