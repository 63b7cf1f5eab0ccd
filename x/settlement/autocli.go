package settlement

import (
	autocliv1 "cosmossdk.io/api/cosmos/autocli/v1"

	"github.com/idlegpu/idlegpu/x/settlement/types"
)

// AutoCLIOptions builds the module's `query settlement` and `tx settlement`
// commands from its gRPC services.
func (AppModule) AutoCLIOptions() *autocliv1.ModuleOptions {
	return &autocliv1.ModuleOptions{
		Query: &autocliv1.ServiceCommandDescriptor{
			Service: types.Query_serviceDesc.ServiceName,
			RpcCommandOptions: []*autocliv1.RpcCommandOptions{
				{
					RpcMethod: "Params",
					Use:       "params",
					Short:     "Show the x/settlement parameters",
				},
				{
					RpcMethod:      "Rewards",
					Use:            "rewards <provider>",
					Short:          "Show a provider's unclaimed rewards",
					PositionalArgs: []*autocliv1.PositionalArgDescriptor{{ProtoField: "provider"}},
				},
				{
					RpcMethod:      "LeaseProofs",
					Use:            "proofs <lease-id>",
					Short:          "List a lease's retained epoch proofs",
					PositionalArgs: []*autocliv1.PositionalArgDescriptor{{ProtoField: "lease_id"}},
				},
				{
					RpcMethod:      "LeaseProgress",
					Use:            "progress <lease-id>",
					Short:          "Show how far a lease's epochs are settled",
					PositionalArgs: []*autocliv1.PositionalArgDescriptor{{ProtoField: "lease_id"}},
				},
				{
					RpcMethod:      "Audit",
					Use:            "audit <audit-id>",
					Short:          "Show one audit",
					PositionalArgs: []*autocliv1.PositionalArgDescriptor{{ProtoField: "audit_id"}},
				},
				{
					RpcMethod: "Audits",
					Use:       "audits",
					Short:     "List audits by id (filter with --provider and --status open|answered|correct|wrong|...)",
				},
			},
		},
		Tx: &autocliv1.ServiceCommandDescriptor{
			Service: types.Msg_serviceDesc.ServiceName,
			RpcCommandOptions: []*autocliv1.RpcCommandOptions{
				{
					RpcMethod:      "UpdateParams",
					Use:            "update-params-proposal <params-json>",
					Short:          "Submit a gov proposal replacing all x/settlement parameters",
					Example:        `idlegpud tx settlement update-params-proposal '{"epoch_seconds":"600","sample_interval_seconds":"5",...}' --from alice --deposit 10000000ugpu`,
					PositionalArgs: []*autocliv1.PositionalArgDescriptor{{ProtoField: "params"}},
					GovProposal:    true,
				},
				{
					// The agent builds and submits proofs; a person rarely types one.
					RpcMethod: "SubmitProofs",
					Skip:      true,
				},
				{
					// Built from the agent's samples and paths by the renter's
					// tooling (idlegpud lease samples, the agent).
					RpcMethod: "ReportFraud",
					Skip:      true,
				},
				{
					RpcMethod: "ClaimRewards",
					Use:       "claim-rewards",
					Short:     "Pay your provider's unclaimed rewards to its operator (--from the operator)",
					Example:   `idlegpud tx settlement claim-rewards --from provider --denoms uusdc`,
				},
				{
					RpcMethod: "OpenAudit",
					Use:       "open-audit <provider> <gpu-uuid> <workload> <seed-hex> <work-units> <commitment-hex> <deadline> <fee>",
					Short:     "Audit an idle GPU (auditors only): the fee is escrowed; prepare seed and commitment with `idlegpud audit plan`",
					Example:   `idlegpud tx settlement open-audit idle1... GPU-5f1c... idlegpu/matmul-u32/v1 $(jq -r .seed plan.json) 2000 $(jq -r .commitment plan.json) 2026-12-03T12:00:00Z 5000000uusdc --from auditor`,
					PositionalArgs: []*autocliv1.PositionalArgDescriptor{
						{ProtoField: "provider"}, {ProtoField: "gpu_uuid"}, {ProtoField: "workload"}, {ProtoField: "seed"},
						{ProtoField: "work_units"}, {ProtoField: "commitment"}, {ProtoField: "deadline"}, {ProtoField: "fee"},
					},
				},
				{
					RpcMethod:      "AnswerAudit",
					Use:            "answer-audit <audit-id> <result-hex>",
					Short:          "Answer an audit of your GPU (the agent does this; `idlegpud audit run` computes the result)",
					PositionalArgs: []*autocliv1.PositionalArgDescriptor{{ProtoField: "audit_id"}, {ProtoField: "result"}},
				},
				{
					RpcMethod:      "RevealAudit",
					Use:            "reveal-audit <audit-id> <salt-hex> <expected-hex>",
					Short:          "Open your audit commitment after the provider answered, for the verdict",
					PositionalArgs: []*autocliv1.PositionalArgDescriptor{{ProtoField: "audit_id"}, {ProtoField: "salt"}, {ProtoField: "expected"}},
				},
			},
		},
	}
}
