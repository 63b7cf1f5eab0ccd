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

// WeightedOperationsX registers the module's messages with the simulator.
func (am AppModule) WeightedOperationsX(weights simsx.WeightSource, reg simsx.Registry) {
	reg.Add(weights.Get("msg_create_offer", 40), simulation.MsgCreateOfferFactory(am.keeper, am.providers))
	reg.Add(weights.Get("msg_update_offer", 20), simulation.MsgUpdateOfferFactory(am.keeper, am.providers))
	reg.Add(weights.Get("msg_close_offer", 10), simulation.MsgCloseOfferFactory(am.keeper))
}

// WeightedOperations is the legacy simulator hook; simsx uses
// WeightedOperationsX instead.
func (AppModule) WeightedOperations(module.SimulationState) []simtypes.WeightedOperation {
	return nil
}
