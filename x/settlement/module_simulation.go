package settlement

import (
	"github.com/cosmos/cosmos-sdk/testutil/simsx"
	"github.com/cosmos/cosmos-sdk/types/module"
	simtypes "github.com/cosmos/cosmos-sdk/types/simulation"

	"github.com/idlegpu/idlegpu/x/settlement/simulation"
	"github.com/idlegpu/idlegpu/x/settlement/types"
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
	reg.Add(weights.Get("msg_update_settlement_params", 50), simulation.MsgUpdateParamsFactory())
}

// WeightedOperationsX registers the module's messages with the simulator.
// MsgSubmitProofs (and so MsgReportFraud) is not among them: a proof binds
// a block header hash, and the SDK simulator's blocks carry none (they also
// come hours apart, so no audit passes and no lease forms): it never sees
// misses, expiries or lost time. TestMarketSimulation
// (simulation/market_sim_test.go, in `make sim`) covers those through the
// real app: alternating misses (MsgSubmitProofsFactory), expiries, slow
// blocks and halts; keeper, integration and e2e tests cover the rest.
func (am AppModule) WeightedOperationsX(weights simsx.WeightSource, reg simsx.Registry) {
	ts := simulation.NewTranscripts()
	reg.Add(weights.Get("msg_request_audit", 5), simulation.MsgRequestAuditFactory(am.keeper, am.providers, am.providers, am.offers))
	reg.Add(weights.Get("msg_answer_audit", 50), simulation.MsgAnswerAuditFactory(am.keeper, ts))
	reg.Add(weights.Get("msg_prove_audit", 30), simulation.MsgProveAuditFactory(am.keeper, ts))
	reg.Add(weights.Get("msg_claim_rewards", 10), simulation.MsgClaimRewardsFactory(am.keeper))
}

// WeightedOperations is the legacy simulator hook; simsx uses
// WeightedOperationsX instead.
func (AppModule) WeightedOperations(module.SimulationState) []simtypes.WeightedOperation {
	return nil
}
