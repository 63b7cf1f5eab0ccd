package bridge

import (
	"github.com/spf13/cobra"

	autocliv1 "cosmossdk.io/api/cosmos/autocli/v1"

	"github.com/idlegpu/idlegpu/x/bridge/client/cli"
	"github.com/idlegpu/idlegpu/x/bridge/types"
)

// GetTxCmd returns the hand-written `tx bridge` commands; autocli adds the
// rest to it.
func (AppModule) GetTxCmd() *cobra.Command { return cli.NewTxCmd() }

// AutoCLIOptions builds the module's `query bridge` and `tx bridge`
// commands from its gRPC services. Orchestrator messages are sent by
// idlegpu-bridge, which signs them; they have no CLI.
func (AppModule) AutoCLIOptions() *autocliv1.ModuleOptions {
	arg := func(field string) []*autocliv1.PositionalArgDescriptor {
		return []*autocliv1.PositionalArgDescriptor{{ProtoField: field}}
	}
	return &autocliv1.ModuleOptions{
		Query: &autocliv1.ServiceCommandDescriptor{
			Service: types.Query_serviceDesc.ServiceName,
			RpcCommandOptions: []*autocliv1.RpcCommandOptions{
				{RpcMethod: "Params", Use: "params", Short: "Show the x/bridge parameters and the vault"},
				{RpcMethod: "Status", Use: "status", Short: "Show the bridge's progress and books"},
				{RpcMethod: "Signers", Use: "signers", Short: "List the validators' registered EVM signers"},
				{RpcMethod: "Orchestrator", Use: "orchestrator <address>", Short: "Show the signer an orchestrator acts for and its last attested deposit", PositionalArgs: arg("address")},
				{RpcMethod: "Valset", Use: "valset [nonce]", Short: "Show a valset and its confirmations (newest without nonce)", PositionalArgs: []*autocliv1.PositionalArgDescriptor{{ProtoField: "nonce", Optional: true}}},
				{RpcMethod: "Deposit", Use: "deposit <nonce>", Short: "Show a credited deposit or its attestations", PositionalArgs: arg("nonce")},
				{RpcMethod: "Attestations", Use: "attestations <valoper>", Short: "List a validator's standing votes for uncredited deposits (at most 1000 nonces after the last credited)", PositionalArgs: arg("validator")},
				{RpcMethod: "Conflicts", Use: "conflicts", Short: "List conflicting attestations"},
				{RpcMethod: "Equivocations", Use: "equivocations", Short: "List proven equivocations (each slashed once)"},
				{RpcMethod: "Root", Use: "root [epoch]", Short: "Show a payout root and its confirmations (newest without epoch)", PositionalArgs: []*autocliv1.PositionalArgDescriptor{{ProtoField: "epoch", Optional: true}}},
				{RpcMethod: "Proof", Use: "proof <epoch> <0x-address>", Short: "Show an EVM account's leaf and Merkle proof (epoch 0: newest ready root)", PositionalArgs: []*autocliv1.PositionalArgDescriptor{{ProtoField: "epoch"}, {ProtoField: "evm_address"}}},
				{RpcMethod: "Cumulative", Use: "cumulative <0x-address>", Short: "Show everything withdrawn to an EVM account", PositionalArgs: arg("evm_address")},
				{RpcMethod: "Misses", Use: "misses", Short: "Show validators' missed attestations and confirmations"},
			},
		},
		Tx: &autocliv1.ServiceCommandDescriptor{
			Service:              types.Msg_serviceDesc.ServiceName,
			EnhanceCustomCommand: true,
			RpcCommandOptions: []*autocliv1.RpcCommandOptions{
				{RpcMethod: "WithdrawToEvm", Skip: true}, // hand-written: its 0x argument is EVM-side
				{RpcMethod: "RegisterEvmSigner", Skip: true},
				{RpcMethod: "AttestDeposit", Skip: true},
				{RpcMethod: "ConfirmValset", Skip: true},
				{RpcMethod: "ConfirmRoot", Skip: true},
				{RpcMethod: "RevokeAttestation", Skip: true},
				{
					RpcMethod: "SubmitValsetEvidence", Use: "submit-valset-evidence <nonce> <signature> --validators 0x…,0x… --powers p1,p2",
					Short:          "Prove that a validator's EVM key signed a valset the chain did not make (slashes and jails it)",
					PositionalArgs: []*autocliv1.PositionalArgDescriptor{{ProtoField: "nonce"}, {ProtoField: "signature"}},
				},
				{
					RpcMethod: "SubmitRootEvidence", Use: "submit-root-evidence <valset-nonce> <epoch> <root> <total-cumulative> <signature>",
					Short: "Prove that a validator's EVM key signed a payout root the chain did not build (slashes and jails it)",
					PositionalArgs: []*autocliv1.PositionalArgDescriptor{{ProtoField: "valset_nonce"}, {ProtoField: "epoch"},
						{ProtoField: "root"}, {ProtoField: "total_cumulative"}, {ProtoField: "signature"}},
				},
				{
					RpcMethod: "UpdateParams", Use: "update-params-proposal <params-json>",
					Short:          "Submit a gov proposal replacing all x/bridge parameters",
					PositionalArgs: arg("params"),
					GovProposal:    true,
				},
			},
		},
	}
}
