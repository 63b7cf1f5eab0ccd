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
					Short:     "List audits by id (filter with --provider and --status open|answered|correct|wrong|missed|unproven)",
				},
				{
					RpcMethod:      "AuditSamples",
					Use:            "audit-samples <audit-id>",
					Short:          "List the transcript leaves an answered audit must open (drawn by the block after the root)",
					PositionalArgs: []*autocliv1.PositionalArgDescriptor{{ProtoField: "audit_id"}},
				},
				{
					RpcMethod:      "GPUVerification",
					Use:            "verification <gpu-uuid>",
					Short:          "Show a GPU's audit record: verified until when, misses in a row",
					PositionalArgs: []*autocliv1.PositionalArgDescriptor{{ProtoField: "gpu_uuid"}},
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
					RpcMethod: "RequestAudit",
					Use:       "request-audit <gpu-uuid> [fee]",
					Short:     "Audit an idle GPU: its provider's required audit without a fee, anyone else's with at least audit_request_fee (paid to the provider whatever the verdict)",
					Example: `idlegpud tx settlement request-audit GPU-5f1c... --from provider     # the required audit
idlegpud tx settlement request-audit GPU-5f1c... 100000uusdc --from anyone`,
					PositionalArgs: []*autocliv1.PositionalArgDescriptor{{ProtoField: "gpu_uuid"}, {ProtoField: "fee", Optional: true}},
				},
				{
					// The agent computes the transcript and sends its root.
					RpcMethod: "AnswerAudit",
					Skip:      true,
				},
				{
					// The agent opens the sampled leaves from its transcript.
					RpcMethod: "ProveAudit",
					Skip:      true,
				},
			},
		},
	}
}
