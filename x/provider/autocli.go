package provider

import (
	"github.com/spf13/cobra"

	autocliv1 "cosmossdk.io/api/cosmos/autocli/v1"

	"github.com/idlegpu/idlegpu/x/provider/client/cli"
	"github.com/idlegpu/idlegpu/x/provider/types"
)

// GetTxCmd returns the hand-written `tx provider` commands (register-gpus
// reads an inventory file); autocli adds every other message to it.
func (AppModule) GetTxCmd() *cobra.Command { return cli.NewTxCmd() }

// AutoCLIOptions builds the module's `query provider` and `tx provider`
// commands from its gRPC services.
func (AppModule) AutoCLIOptions() *autocliv1.ModuleOptions {
	return &autocliv1.ModuleOptions{
		Query: &autocliv1.ServiceCommandDescriptor{
			Service: types.Query_serviceDesc.ServiceName,
			RpcCommandOptions: []*autocliv1.RpcCommandOptions{
				{RpcMethod: "Params", Use: "params", Short: "Show the x/provider parameters"},
				{
					RpcMethod: "Provider", Use: "provider <operator>", Short: "Show a provider and its reputation",
					PositionalArgs: []*autocliv1.PositionalArgDescriptor{{ProtoField: "operator"}},
				},
				{RpcMethod: "Providers", Use: "providers", Short: "List providers"},
				{
					RpcMethod: "GPU", Use: "gpu <uuid>", Short: "Show a GPU by its NVML UUID",
					PositionalArgs: []*autocliv1.PositionalArgDescriptor{{ProtoField: "uuid"}},
				},
				{
					RpcMethod: "GPUHistory", Use: "gpu-history <uuid>", Short: "Show the record a deregistered GPU carries to its next provider",
					PositionalArgs: []*autocliv1.PositionalArgDescriptor{{ProtoField: "uuid"}},
				},
				{
					RpcMethod: "ProviderGPUs", Use: "gpus <provider>", Short: "List a provider's GPUs",
					PositionalArgs: []*autocliv1.PositionalArgDescriptor{{ProtoField: "provider"}},
				},
				{
					RpcMethod: "Unbondings", Use: "unbondings <provider>", Short: "List a provider's unbonding stake",
					PositionalArgs: []*autocliv1.PositionalArgDescriptor{{ProtoField: "provider"}},
				},
				{
					RpcMethod: "Reputation", Use: "reputation <provider>", Short: "Show a provider's reputation",
					PositionalArgs: []*autocliv1.PositionalArgDescriptor{{ProtoField: "provider"}},
				},
			},
		},
		Tx: &autocliv1.ServiceCommandDescriptor{
			Service:              types.Msg_serviceDesc.ServiceName,
			EnhanceCustomCommand: true,
			RpcCommandOptions: []*autocliv1.RpcCommandOptions{
				{
					RpcMethod: "RegisterProvider",
					Use:       "register-provider <moniker> <region> <endpoint>",
					Short:     "Register the signer as a GPU provider",
					Long: "Register the signer (--from) as a provider. region is continent[-country[-site]] " +
						"(e.g. eu-de-fra1); endpoint is the agent's https URL (http only on loopback), pinned by --tls-cert-sha256.",
					Example: `idlegpud tx provider register-provider "Fra1 rack" eu-de-fra1 https://gpu.example.com:8443 --tls-cert-sha256 9f86... --agents idle1agent... --from operator`,
					PositionalArgs: []*autocliv1.PositionalArgDescriptor{
						{ProtoField: "moniker"}, {ProtoField: "region"}, {ProtoField: "endpoint"},
					},
				},
				{
					RpcMethod: "UpdateProvider",
					Use:       "update-provider <moniker> <region> <endpoint>",
					Short:     "Replace the provider's description, certificate pin and agents (operator only)",
					PositionalArgs: []*autocliv1.PositionalArgDescriptor{
						{ProtoField: "moniker"}, {ProtoField: "region"}, {ProtoField: "endpoint"},
					},
				},
				{RpcMethod: "RegisterGPUs", Skip: true}, // hand-written: reads the inventory file
				{
					RpcMethod: "DeregisterGPU",
					Use:       "deregister-gpu <provider> <uuid>",
					Short:     "Unbind a GPU that is in no offer or lease (operator or agent)",
					PositionalArgs: []*autocliv1.PositionalArgDescriptor{
						{ProtoField: "provider"}, {ProtoField: "uuid"},
					},
				},
				{
					RpcMethod: "Bond", Use: "bond <amount>", Short: "Add stake from the operator's balance",
					Example:        `idlegpud tx provider bond 100000000ugpu --from operator`,
					PositionalArgs: []*autocliv1.PositionalArgDescriptor{{ProtoField: "amount"}},
				},
				{
					RpcMethod: "Unbond", Use: "unbond <amount>", Short: "Start unbonding stake (paid back after unbonding_period_seconds)",
					PositionalArgs: []*autocliv1.PositionalArgDescriptor{{ProtoField: "amount"}},
				},
				{RpcMethod: "Unjail", Use: "unjail", Short: "Return to work after jailed_until"},
				{
					RpcMethod:      "UpdateParams",
					Use:            "update-params-proposal <params-json>",
					Short:          "Submit a gov proposal replacing all x/provider parameters",
					Example:        `idlegpud tx provider update-params-proposal "$(idlegpud q provider params -o json | jq -c .params)" --from alice --deposit 10000000ugpu`,
					PositionalArgs: []*autocliv1.PositionalArgDescriptor{{ProtoField: "params"}},
					GovProposal:    true,
				},
			},
		},
	}
}
