// Package cli holds `tx auction post-job`, which takes human units and
// hashes the manifest locally (the manifest itself never goes on chain).
package cli

import (
	"context"
	"fmt"
	"github.com/idlegpu/idlegpu/x/auction/client/units"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/cosmos/cosmos-sdk/client"
	"github.com/cosmos/cosmos-sdk/client/flags"
	"github.com/cosmos/cosmos-sdk/client/tx"
	banktypes "github.com/cosmos/cosmos-sdk/x/bank/types"

	"github.com/idlegpu/idlegpu/x/auction/types"
	"github.com/idlegpu/idlegpu/x/client/precheck"
	offertypes "github.com/idlegpu/idlegpu/x/offer/types"
)

// NewTxCmd returns `tx auction`; autocli adds the other commands to it.
func NewTxCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:                        types.ModuleName,
		Short:                      "x/auction transactions: post jobs, bid, run and end leases",
		DisableFlagParsing:         true,
		SuggestionsMinimumDistance: 2,
		RunE:                       client.ValidateCmd,
	}
	cmd.AddCommand(PostJobCmd(), SignJobCmd(), SignCancelCmd(), SignCloseCmd(), SignWithdrawCmd(), SubmitSignedJobCmd())
	return cmd
}

const (
	flagGPUs       = "gpus"
	flagModel      = "model"
	flagMinMemory  = "min-memory"
	flagRegion     = "region"
	flagTier       = "tier"
	flagDuration   = "duration"
	flagMaxPrice   = "max-price"
	flagImage      = "image"
	flagManifest   = "manifest"
	flagWorkload   = "workload"
	flagBidWindow  = "bid-window"
	flagAllowSplit = "allow-split"
	flagMinCPU     = "min-cpu-cores-per-gpu"
	flagMinHostMem = "min-host-memory-mib-per-gpu"
	flagMinDisk    = "min-disk-gib-per-gpu"
	flagMinEgress  = "min-egress-mbps-per-gpu"
	flagIngress    = "ingress-port"
)

// PostJobCmd is `tx auction post-job`.
func PostJobCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "post-job",
		Short: "Post a GPU job: its deposit goes into escrow until it clears",
		Long: `Post a job. The deposit escrowed is max price × GPUs × duration (rounded up); at
clearing everything above the clearing price comes back at once.

The manifest file (command, env, secrets) stays on this machine: only its
sha256 goes on chain. Send it to the winning provider's agent once the lease
exists: idlegpud lease send-manifest <lease-id> <manifest.json> --from renter.

Before anything is signed, the job is checked against the market: when no
standing offer fits it, or none of the fitting offers' providers may serve
its tier (SILVER needs 95 % reliability by default and a new provider starts
at 90 %), post-job says so and sends nothing (--skip-market-check posts
anyway).

Prices take the chain's display units (1.5usdc/gpu-h) or base units
(1500000uusdc). Memory takes MiB or units: an "80GB" card reports about
81559 MiB, so --min-memory 80GB takes it and 80GiB (81920 MiB) does not.`,
		Example: `idlegpud tx auction post-job --gpus 2 --model "NVIDIA H100 80GB HBM3" --min-memory 80GB --region eu \
  --tier silver --duration 2h --max-price 1.5usdc/gpu-h --image ghcr.io/acme/train@sha256:<64 hex> \
  --manifest job.json --workload training --from renter`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			clientCtx, err := client.GetClientTxContext(cmd)
			if err != nil {
				return err
			}
			spec, err := specFromFlags(cmd, clientCtx)
			if err != nil {
				return err
			}
			msg := &types.MsgPostJob{Renter: clientCtx.GetFromAddress().String(), Spec: spec}
			return tx.GenerateOrBroadcastTxCLI(clientCtx, cmd.Flags(), msg)
		},
	}
	addSpecFlags(cmd)
	flags.AddTxFlagsToCmd(cmd)
	return cmd
}

func specFromFlags(cmd *cobra.Command, clientCtx client.Context) (types.JobSpec, error) {
	f := cmd.Flags()
	var spec types.JobSpec
	var err error
	spec.GpuCount, _ = f.GetUint32(flagGPUs)
	spec.Models, _ = f.GetStringArray(flagModel)
	// GetStringArray loses a lone empty value; the flag's own slice keeps it.
	if sv, ok := f.Lookup(flagModel).Value.(pflag.SliceValue); ok {
		spec.Models = sv.GetSlice()
	}
	for _, m := range spec.Models {
		// An empty model would be dropped on chain and the job would take any.
		if m == "" {
			return spec, fmt.Errorf("--%s: empty model name; name a GPU model exactly as NVML does, or omit --%s for any model", flagModel, flagModel)
		}
	}
	spec.Regions, _ = f.GetStringArray(flagRegion)
	spec.AllowSplit, _ = f.GetBool(flagAllowSplit)
	minimaFromFlags(f, &spec)
	mem, _ := f.GetString(flagMinMemory)
	if spec.MinMemoryMib, err = units.ParseMemoryMiB(mem); err != nil {
		return spec, err
	}
	tier, _ := f.GetString(flagTier)
	if spec.Tier, err = units.ParseTier(tier); err != nil {
		return spec, err
	}
	spec.Preemptible = spec.Tier == types.TIER_BRONZE
	dur, _ := f.GetString(flagDuration)
	if spec.DurationSeconds, err = units.ParseDurationSeconds(dur); err != nil {
		return spec, fmt.Errorf("--%s: %w", flagDuration, err)
	}
	image, _ := f.GetString(flagImage)
	if spec.Image, spec.ImageDigest, err = units.ParseImage(image); err != nil {
		return spec, err
	}
	path, _ := f.GetString(flagManifest)
	manifest, err := os.ReadFile(path)
	if err != nil {
		return spec, fmt.Errorf("reading the manifest: %w", err)
	}
	spec.ManifestHash = types.ManifestHash(manifest)
	w, _ := f.GetString(flagWorkload)
	wl, ok := offertypes.Workload_value["WORKLOAD_"+upper(w)]
	if !ok || wl == 0 {
		return spec, fmt.Errorf("workload %q: want inference, training, batch or render", w)
	}
	spec.Workload = offertypes.Workload(wl)

	// Human prices need the chain's denom metadata; the default bid window
	// is a chain param.
	ctx := cmd.Context()
	metas, err := banktypes.NewQueryClient(clientCtx).DenomsMetadata(ctx, &banktypes.QueryDenomsMetadataRequest{})
	if err != nil {
		return spec, fmt.Errorf("reading denom metadata: %w", err)
	}
	price, _ := f.GetString(flagMaxPrice)
	if spec.MaxPrice, err = units.ParsePrice(price, metas.Metadatas); err != nil {
		return spec, fmt.Errorf("--%s: %w", flagMaxPrice, err)
	}
	window, _ := f.GetInt64(flagBidWindow)
	var params *types.Params
	if window < 0 || precheck.Online(clientCtx) {
		res, err := types.NewQueryClient(clientCtx).Params(ctx, &types.QueryParamsRequest{})
		if err != nil {
			return spec, fmt.Errorf("reading the x/auction params: %w", err)
		}
		params = &res.Params
	}
	if window < 0 {
		window = int64(params.DefaultBidWindowBlocks)
	}
	if window > types.MaxBidWindowBlocks {
		return spec, fmt.Errorf("--%s: at most %d blocks", flagBidWindow, types.MaxBidWindowBlocks)
	}
	spec.BidWindowBlocks = uint32(window)
	if !precheck.Online(clientCtx) {
		return spec, nil
	}
	if err := checkSpec(ctx, clientCtx, spec, *params); err != nil {
		return spec, err
	}
	if skip, _ := f.GetBool(flagSkipMarketCheck); skip {
		return spec, nil
	}
	return spec, checkMarket(ctx, clientCtx, spec, *params)
}

// checkSpec refuses, before the deposit is signed away, a job the chain
// would refuse or never match: the spec against the params, a denom the
// market does not take, a model no GPU can register as.
func checkSpec(ctx context.Context, clientCtx client.Context, spec types.JobSpec, params types.Params) error {
	if err := precheck.GPUModels(ctx, clientCtx, spec.Models); err != nil {
		return fmt.Errorf("--%s: %w", flagModel, err)
	}
	if err := precheck.PaymentDenom(ctx, clientCtx, spec.MaxPrice.Denom); err != nil {
		return fmt.Errorf("--%s: %w", flagMaxPrice, err)
	}
	return spec.Validate(params)
}

// minimaFromFlags sets the host resources and egress per GPU the job needs.
func minimaFromFlags(f *pflag.FlagSet, spec *types.JobSpec) {
	spec.MinCpuCoresPerGpu, _ = f.GetUint32(flagMinCPU)
	spec.MinHostMemoryMibPerGpu, _ = f.GetUint64(flagMinHostMem)
	spec.MinDiskGibPerGpu, _ = f.GetUint64(flagMinDisk)
	spec.MinEgressMbpsPerGpu, _ = f.GetUint32(flagMinEgress)
	spec.IngressPort, _ = f.GetUint32(flagIngress)
}

func upper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'a' && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}

// addSpecFlags adds the job flags post-job and sign-job share.
func addSpecFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.Uint32(flagGPUs, 1, "GPUs the job needs")
	f.StringArray(flagModel, nil, "acceptable GPU model, exactly as NVML names it; repeatable (none: any)")
	f.String(flagMinMemory, "0", "least memory per GPU: MiB, or with a unit (80GB, 79GiB)")
	f.StringArray(flagRegion, nil, "acceptable region, e.g. eu or eu-de; repeatable (none: any)")
	f.String(flagTier, "silver", "gold (reserved), silver (on-demand) or bronze (preemptible)")
	f.String(flagDuration, "", "how long the job runs, e.g. 90m or 2h")
	f.String(flagMaxPrice, "", "most paid per GPU-hour, e.g. 1.5usdc/gpu-h")
	f.String(flagImage, "", "container image pinned by digest: repo@sha256:<64 hex>")
	f.String(flagManifest, "", "manifest file; only its sha256 goes on chain")
	f.String(flagWorkload, "batch", "inference, training, batch or render")
	f.Int64(flagBidWindow, -1, "blocks to take bids; 0 clears against standing offers in the same block (default: the chain's default_bid_window_blocks)")
	f.Bool(flagAllowSplit, false, "let several providers serve the job (a micro-pool)")
	f.Uint32(flagMinCPU, 0, "least host CPU cores per GPU an offer must give (0: any)")
	f.Uint64(flagMinHostMem, 0, "least host memory per GPU in MiB an offer must give (0: any)")
	f.Uint64(flagMinDisk, 0, "least scratch disk per GPU in GiB an offer must give (0: any)")
	f.Uint32(flagIngress, 0, "container port of an inbound HTTP service, served at https://lease-<id>.<provider's ingress domain> (0: none)")
	f.Uint32(flagMinEgress, 0, "least internet egress per GPU in Mbit/s an offer must give (0: the job needs no network and runs with none)")
	f.Bool(flagSkipMarketCheck, false, "post even when no standing offer of a provider that may serve the tier fits the job now")
	for _, req := range []string{flagDuration, flagMaxPrice, flagImage, flagManifest} {
		_ = cmd.MarkFlagRequired(req)
	}
}
