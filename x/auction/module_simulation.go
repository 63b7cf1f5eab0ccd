package auction

import (
	"github.com/cosmos/cosmos-sdk/testutil/simsx"
	"github.com/cosmos/cosmos-sdk/types/module"
	simtypes "github.com/cosmos/cosmos-sdk/types/simulation"

	"github.com/idlegpu/idlegpu/x/auction/simulation"
	"github.com/idlegpu/idlegpu/x/auction/types"
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
	reg.Add(weights.Get("msg_update_auction_params", 50), simulation.MsgUpdateParamsFactory())
}

// WeightedOperationsX registers the module's messages with the simulator.
func (am AppModule) WeightedOperationsX(weights simsx.WeightSource, reg simsx.Registry) {
	reg.Add(weights.Get("msg_post_job", 40), simulation.MsgPostJobFactory(am.keeper, am.offers))
	reg.Add(weights.Get("msg_place_bid", 30), simulation.MsgPlaceBidFactory(am.keeper, am.offers))
	reg.Add(weights.Get("msg_withdraw_bid", 5), simulation.MsgWithdrawBidFactory(am.keeper))
	reg.Add(weights.Get("msg_cancel_job", 5), simulation.MsgCancelJobFactory(am.keeper))
	reg.Add(weights.Get("msg_start_lease", 30), simulation.MsgStartLeaseFactory(am.keeper))
	reg.Add(weights.Get("msg_close_lease", 10), simulation.MsgCloseLeaseFactory(am.keeper))
	reg.Add(weights.Get("msg_preempt_lease", 5), simulation.MsgPreemptLeaseFactory(am.keeper))
}

// WeightedOperations is the legacy simulator hook; simsx uses
// WeightedOperationsX instead.
func (AppModule) WeightedOperations(module.SimulationState) []simtypes.WeightedOperation {
	return nil
}
