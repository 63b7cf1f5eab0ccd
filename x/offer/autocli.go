package offer

import (
	"github.com/spf13/cobra"

	autocliv1 "cosmossdk.io/api/cosmos/autocli/v1"

	"github.com/idlegpu/idlegpu/x/offer/client/cli"
	"github.com/idlegpu/idlegpu/x/offer/types"
)

// GetTxCmd returns the hand-written `tx offer` commands (create-offer and
// update-offer take human flags); autocli adds the rest to it.
func (AppModule) GetTxCmd() *cobra.Command { return cli.NewTxCmd() }

// AutoCLIOptions builds the module's `query offer` and `tx offer`
// commands from its gRPC services.
func (AppModule) AutoCLIOptions() *autocliv1.ModuleOptions {
	return &autocliv1.ModuleOptions{
		Query: &autocliv1.ServiceCommandDescriptor{
			Service: types.Query_serviceDesc.ServiceName,
			RpcCommandOptions: []*autocliv1.RpcCommandOptions{
				{RpcMethod: "Params", Use: "params", Short: "Show the x/offer parameters"},
				{
					RpcMethod: "Offer", Use: "offer <id>", Short: "Show one offer",
					PositionalArgs: []*autocliv1.PositionalArgDescriptor{{ProtoField: "id"}},
				},
				{
					RpcMethod: "ProviderOffers", Use: "provider-offers <provider>", Short: "List a provider's offers",
					PositionalArgs: []*autocliv1.PositionalArgDescriptor{{ProtoField: "provider"}},
				},
				{
					RpcMethod: "Search", Use: "search", Short: "Search the market's offers (open ones unless --status)",
					Example: `idlegpud q offer search --model "NVIDIA H100 80GB HBM3" --region eu --lane on-demand --max-price 2.5usdc/gpu-h`,
				},
				{
					RpcMethod: "Candidates", Use: "candidates", Short: "Show the offers a job would be matched with now, cheapest first",
					Example: `idlegpud q offer candidates --lane on-demand --max-price 3usdc/gpu-h --workload training --gpu-count 2 --duration-seconds 7200`,
				},
				{
					RpcMethod: "FillRate", Use: "fill-rate <provider>", Short: "Show a provider's offered and leased GPU-seconds and fill rate",
					PositionalArgs: []*autocliv1.PositionalArgDescriptor{{ProtoField: "provider"}},
				},
			},
		},
		Tx: &autocliv1.ServiceCommandDescriptor{
			Service:              types.Msg_serviceDesc.ServiceName,
			EnhanceCustomCommand: true,
			RpcCommandOptions: []*autocliv1.RpcCommandOptions{
				{RpcMethod: "CreateOffer", Skip: true}, // hand-written: human flags
				{RpcMethod: "UpdateOffer", Skip: true}, // hand-written: reads the offer, changes what is given
				{
					RpcMethod: "CloseOffer", Use: "close-offer <offer-id>",
					Short:          "Close an offer: free GPUs leave at once, leased ones when their leases end",
					PositionalArgs: []*autocliv1.PositionalArgDescriptor{{ProtoField: "offer_id"}},
				},
				{
					RpcMethod:      "UpdateParams",
					Use:            "update-params-proposal <params-json>",
					Short:          "Submit a gov proposal replacing all x/offer parameters",
					Example:        `idlegpud tx offer update-params-proposal "$(idlegpud q offer params -o json | jq -c .params)" --from alice --deposit 10000000ugpu`,
					PositionalArgs: []*autocliv1.PositionalArgDescriptor{{ProtoField: "params"}},
					GovProposal:    true,
				},
			},
		},
	}
}
