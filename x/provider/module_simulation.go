package provider

import (
	"github.com/cosmos/cosmos-sdk/testutil/simsx"
	"github.com/cosmos/cosmos-sdk/types/module"
	simtypes "github.com/cosmos/cosmos-sdk/types/simulation"

	"github.com/idlegpu/idlegpu/x/provider/simulation"
	"github.com/idlegpu/idlegpu/x/provider/types"
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
	reg.Add(weights.Get("msg_update_provider_params", 50), simulation.MsgUpdateParamsFactory())
}

// WeightedOperationsX registers the module's messages with the simulator.
func (am AppModule) WeightedOperationsX(weights simsx.WeightSource, reg simsx.Registry) {
	reg.Add(weights.Get("msg_register_provider", 30), simulation.MsgRegisterProviderFactory(am.keeper))
	reg.Add(weights.Get("msg_update_provider", 10), simulation.MsgUpdateProviderFactory(am.keeper))
	reg.Add(weights.Get("msg_register_gpus", 40), simulation.MsgRegisterGPUsFactory(am.keeper))
	reg.Add(weights.Get("msg_deregister_gpu", 10), simulation.MsgDeregisterGPUFactory(am.keeper))
	reg.Add(weights.Get("msg_bond", 40), simulation.MsgBondFactory(am.keeper))
	reg.Add(weights.Get("msg_unbond", 20), simulation.MsgUnbondFactory(am.keeper))
}

// WeightedOperations is the legacy simulator hook; simsx uses
// WeightedOperationsX instead.
func (AppModule) WeightedOperations(module.SimulationState) []simtypes.WeightedOperation {
	return nil
}
