package auction

import (
	"github.com/spf13/cobra"

	autocliv1 "cosmossdk.io/api/cosmos/autocli/v1"

	"github.com/idlegpu/idlegpu/x/auction/client/cli"
	"github.com/idlegpu/idlegpu/x/auction/types"
)

// GetTxCmd returns the hand-written `tx auction` commands (post-job takes
// human units); autocli adds the rest to it.
func (AppModule) GetTxCmd() *cobra.Command { return cli.NewTxCmd() }

// AutoCLIOptions builds the module's `query auction` and `tx auction`
// commands from its gRPC services.
func (AppModule) AutoCLIOptions() *autocliv1.ModuleOptions {
	id := func(field string) []*autocliv1.PositionalArgDescriptor {
		return []*autocliv1.PositionalArgDescriptor{{ProtoField: field}}
	}
	return &autocliv1.ModuleOptions{
		Query: &autocliv1.ServiceCommandDescriptor{
			Service: types.Query_serviceDesc.ServiceName,
			RpcCommandOptions: []*autocliv1.RpcCommandOptions{
				{RpcMethod: "Params", Use: "params", Short: "Show the x/auction parameters"},
				{RpcMethod: "Job", Use: "job <id>", Short: "Show a job, its escrow and clearing price", PositionalArgs: id("id")},
				{RpcMethod: "JobBids", Use: "bids <job-id>", Short: "List the bids on a job", PositionalArgs: id("job_id")},
				{RpcMethod: "Lease", Use: "lease <id>", Short: "Show a lease: provider, GPUs, price, escrow, paid", PositionalArgs: id("id")},
				{RpcMethod: "RenterJobs", Use: "renter-jobs <renter>", Short: "List a renter's jobs (--status to filter)", PositionalArgs: id("renter")},
				{RpcMethod: "ProviderLeases", Use: "provider-leases <provider>", Short: "List a provider's leases (--status to filter)", PositionalArgs: id("provider")},
				{RpcMethod: "RenterLeases", Use: "renter-leases <renter>", Short: "List a renter's leases (--status to filter)", PositionalArgs: id("renter")},
			},
		},
		Tx: &autocliv1.ServiceCommandDescriptor{
			Service:              types.Msg_serviceDesc.ServiceName,
			EnhanceCustomCommand: true,
			RpcCommandOptions: []*autocliv1.RpcCommandOptions{
				{RpcMethod: "PostJob", Skip: true}, // hand-written: human units, local manifest hash
				{RpcMethod: "CancelJob", Use: "cancel-job <job-id>", Short: "Cancel your job: a full refund before clearing, its leases closed after", PositionalArgs: id("job_id")},
				{
					RpcMethod: "PlaceBid", Use: "place-bid <provider> <job-id> <offer-id> <price> <gpu-count>",
					Short: "Bid an offer's GPUs on a job (operator or agent); replaces the provider's earlier bid",
					PositionalArgs: []*autocliv1.PositionalArgDescriptor{
						{ProtoField: "provider"}, {ProtoField: "job_id"}, {ProtoField: "offer_id"}, {ProtoField: "price"}, {ProtoField: "gpu_count"},
					},
				},
				{
					RpcMethod: "WithdrawBid", Use: "withdraw-bid <provider> <job-id>", Short: "Withdraw a provider's bid",
					PositionalArgs: []*autocliv1.PositionalArgDescriptor{{ProtoField: "provider"}, {ProtoField: "job_id"}},
				},
				{RpcMethod: "StartLease", Use: "start-lease <lease-id>", Short: "Start a lease: the manifest arrived and the job runs (operator or agent)", PositionalArgs: id("lease_id")},
				{RpcMethod: "CloseLease", Use: "close-lease <lease-id>", Short: "End a lease early (renter or provider); paid stays paid, the rest is refunded", PositionalArgs: id("lease_id")},
				{RpcMethod: "PreemptLease", Use: "preempt-lease <lease-id>", Short: "Take back a BRONZE lease (operator or agent)", PositionalArgs: id("lease_id")},
				{
					RpcMethod:      "UpdateParams",
					Use:            "update-params-proposal <params-json>",
					Short:          "Submit a gov proposal replacing all x/auction parameters",
					Example:        `idlegpud tx auction update-params-proposal "$(idlegpud q auction params -o json | jq -c .params)" --from alice --deposit 10000000ugpu`,
					PositionalArgs: []*autocliv1.PositionalArgDescriptor{{ProtoField: "params"}},
					GovProposal:    true,
				},
			},
		},
	}
}
