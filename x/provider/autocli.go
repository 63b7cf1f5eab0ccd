package provider

import (
	autocliv1 "cosmossdk.io/api/cosmos/autocli/v1"

	"github.com/idlegpu/idlegpu/x/provider/types"
)

// AutoCLIOptions builds the module's `query provider` and `tx provider`
// commands from its gRPC services.
func (AppModule) AutoCLIOptions() *autocliv1.ModuleOptions {
	return &autocliv1.ModuleOptions{
		Query: &autocliv1.ServiceCommandDescriptor{
			Service: types.Query_serviceDesc.ServiceName,
			RpcCommandOptions: []*autocliv1.RpcCommandOptions{
				{
					RpcMethod: "Params",
					Use:       "params",
					Short:     "Show the x/provider parameters",
				},
			},
		},
		Tx: &autocliv1.ServiceCommandDescriptor{
			Service: types.Msg_serviceDesc.ServiceName,
			RpcCommandOptions: []*autocliv1.RpcCommandOptions{
				{
					RpcMethod:      "UpdateParams",
					Use:            "update-params-proposal <params-json>",
					Short:          "Submit a gov proposal replacing all x/provider parameters",
					Example:        `idlegpud tx provider update-params-proposal '{"min_stake_per_gpu":{"denom":"ugpu","amount":"100000000"},...}' --from alice --deposit 10000000ugpu`,
					PositionalArgs: []*autocliv1.PositionalArgDescriptor{{ProtoField: "params"}},
					GovProposal:    true,
				},
			},
		},
	}
}
