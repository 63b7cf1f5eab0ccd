// Package cli holds the x/offer commands autocli cannot build well: offers
// from flags with RFC 3339 windows, Go durations and lane/workload names.
package cli

import (
	"fmt"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/cosmos/cosmos-sdk/client"
	"github.com/cosmos/cosmos-sdk/client/flags"
	"github.com/cosmos/cosmos-sdk/client/tx"
	sdk "github.com/cosmos/cosmos-sdk/types"
	banktypes "github.com/cosmos/cosmos-sdk/x/bank/types"

	"github.com/idlegpu/idlegpu/x/auction/client/units"
	"github.com/idlegpu/idlegpu/x/client/precheck"
	"github.com/idlegpu/idlegpu/x/offer/types"
)

// NewTxCmd returns `tx offer`; autocli adds the other commands to it.
func NewTxCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:                        types.ModuleName,
		Short:                      "x/offer transactions: offer GPUs, change and close offers",
		DisableFlagParsing:         true,
		SuggestionsMinimumDistance: 2,
		RunE:                       client.ValidateCmd,
	}
	cmd.AddCommand(CreateOfferCmd(), UpdateOfferCmd())
	return cmd
}

const termsHelp = `Terms:
  --price-on-demand PRICE    price per GPU-hour on ON_DEMAND and RESERVED, in the chain's
                             display units or base units (2usdc/gpu-h, 2 USDC, 2000000uusdc)
  --price-preemptible PRICE  price per GPU-hour on PREEMPTIBLE
  --lanes LIST               on-demand,preemptible,reserved (default: the lanes priced;
                             reserved sells at the on-demand price and must be named)
  --workloads LIST           inference,training,batch,render (default: all)
  --window START/END         availability window, RFC 3339 times, repeatable
                             (none: always available)
  --max-duration DURATION    longest job, Go duration such as 24h (default: no limit)
  --image PREFIX             allowed image digest prefix sha256:<hex>, repeatable (none: any)
  --image-prefix REF         image reference prefix run, e.g. ghcr.io/acme/, repeatable (none: any)
  --cpu-cores-per-gpu N      host CPU cores per GPU; --memory-mib-per-gpu N, --disk-gib-per-gpu N
                             host memory (MiB) and scratch disk (GiB) per GPU (0: not stated)
  --egress-mbps-per-gpu N    internet egress per GPU in Mbit/s, never to the provider's host
                             or private ranges (0: jobs get no network)`

// CreateOfferCmd is `tx offer create-offer <gpu-uuid>...`.
func CreateOfferCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "create-offer <gpu-uuid>...",
		Short: "Offer registered GPUs of one model on the market (operator or agent)",
		Long:  "Offer some of a provider's registered GPUs, all of one model and in no other offer.\nThe provider's stake must cover every GPU it offers.\n\n" + termsHelp,
		Example: `idlegpud tx offer create-offer GPU-5f1c6c2a-9b8e-4c3d-a1f0-0123456789ab --price-on-demand 2usdc/gpu-h \
  --price-preemptible 0.9usdc/gpu-h --window 2026-12-01T00:00:00Z/2026-12-31T00:00:00Z --max-duration 72h --from operator`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			clientCtx, err := client.GetClientTxContext(cmd)
			if err != nil {
				return err
			}
			metas, err := precheck.DenomMetadata(cmd.Context(), clientCtx)
			if err != nil {
				return err
			}
			var terms types.OfferTerms
			if err := applyTermFlags(cmd, &terms, true, metas); err != nil {
				return err
			}
			if err := checkPriceDenoms(cmd, clientCtx, terms); err != nil {
				return err
			}
			signer := clientCtx.GetFromAddress().String()
			provider, _ := cmd.Flags().GetString(flagProvider)
			if provider == "" {
				provider = signer
			}
			region, _ := cmd.Flags().GetString(flagRegion)
			msg := &types.MsgCreateOffer{Signer: signer, Provider: provider, GpuUuids: args, Region: region, Terms: terms}
			return tx.GenerateOrBroadcastTxCLI(clientCtx, cmd.Flags(), msg)
		},
	}
	addTermFlags(cmd)
	cmd.Flags().String(flagProvider, "", "operator address of the provider (default: the signer)")
	cmd.Flags().String(flagRegion, "", "region of the GPUs, continent[-country[-site]] (default: the provider's)")
	flags.AddTxFlagsToCmd(cmd)
	return cmd
}

// UpdateOfferCmd is `tx offer update-offer <id>`: it reads the offer and
// changes only the terms given as flags.
func UpdateOfferCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "update-offer <offer-id>",
		Short: "Change an offer's terms, or pause or reopen it (operator or agent)",
		Long: "Change an offer. The current terms are read from the chain and only the flags given\n" +
			"replace them; --clear-windows, --clear-images and --max-duration 0 remove limits.\n\n" + termsHelp,
		Example: `idlegpud tx offer update-offer 7 --price-on-demand 1.8usdc/gpu-h --from agent
idlegpud tx offer update-offer 7 --pause --from operator`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			clientCtx, err := client.GetClientTxContext(cmd)
			if err != nil {
				return err
			}
			id, err := strconv.ParseUint(args[0], 10, 64)
			if err != nil {
				return fmt.Errorf("offer id %q: %w", args[0], err)
			}
			offer, err := precheck.Offer(cmd.Context(), clientCtx, id)
			if err != nil {
				return err
			}
			terms := offer.Terms
			// The chain refuses ended windows; drop those that ended (or end
			// within a minute, before the tx could land) instead of failing.
			terms.Windows = openWindows(terms.Windows, time.Now().Add(time.Minute))
			metas, err := precheck.DenomMetadata(cmd.Context(), clientCtx)
			if err != nil {
				return err
			}
			if err := applyTermFlags(cmd, &terms, false, metas); err != nil {
				return err
			}
			if err := checkPriceDenoms(cmd, clientCtx, terms); err != nil {
				return err
			}
			msg := &types.MsgUpdateOffer{Signer: clientCtx.GetFromAddress().String(), OfferId: id, Terms: terms}
			pause, _ := cmd.Flags().GetBool(flagPause)
			open, _ := cmd.Flags().GetBool(flagOpen)
			switch {
			case pause && open:
				return fmt.Errorf("--pause and --open exclude each other")
			case pause:
				msg.Status = types.OFFER_STATUS_PAUSED
			case open:
				msg.Status = types.OFFER_STATUS_OPEN
			}
			return tx.GenerateOrBroadcastTxCLI(clientCtx, cmd.Flags(), msg)
		},
	}
	addTermFlags(cmd)
	cmd.Flags().Bool(flagPause, false, "pause the offer (it keeps its GPUs but is not matched)")
	cmd.Flags().Bool(flagOpen, false, "reopen a paused offer")
	cmd.Flags().Bool(flagClearWindows, false, "remove every window (always available)")
	cmd.Flags().Bool(flagClearImages, false, "remove the image allowlist (any image)")
	flags.AddTxFlagsToCmd(cmd)
	return cmd
}

const (
	flagProvider         = "provider"
	flagRegion           = "region"
	flagPriceOnDemand    = "price-on-demand"
	flagPricePreemptible = "price-preemptible"
	flagLanes            = "lanes"
	flagWorkloads        = "workloads"
	flagWindow           = "window"
	flagMaxDuration      = "max-duration"
	flagImage            = "image"
	flagPause            = "pause"
	flagOpen             = "open"
	flagClearWindows     = "clear-windows"
	flagClearImages      = "clear-images"
	flagImagePrefix      = "image-prefix"
	flagCPUCores         = "cpu-cores-per-gpu"
	flagMemoryMiB        = "memory-mib-per-gpu"
	flagDiskGiB          = "disk-gib-per-gpu"
	flagEgressMbps       = "egress-mbps-per-gpu"
	flagIngressDomain    = "ingress-domain"
	flagIngressCert      = "ingress-tls-cert-sha256"
)

func addTermFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.String(flagPriceOnDemand, "", "price per GPU-hour on ON_DEMAND and RESERVED, e.g. 2usdc/gpu-h or 2000000uusdc")
	f.String(flagPricePreemptible, "", "price per GPU-hour on PREEMPTIBLE, e.g. 0.9usdc/gpu-h or 900000uusdc")
	f.String(flagLanes, "", "lanes sold: on-demand,preemptible,reserved (default: the lanes priced)")
	f.String(flagWorkloads, "", "workloads taken: inference,training,batch,render (default: all)")
	f.StringArray(flagWindow, nil, "availability window START/END in RFC 3339, repeatable")
	f.String(flagMaxDuration, "", "longest job as a Go duration, e.g. 72h (0: no limit)")
	f.StringArray(flagImage, nil, "allowed image digest prefix sha256:<hex>, repeatable")
	f.StringArray(flagImagePrefix, nil, "image reference prefix the provider runs, e.g. ghcr.io/acme/, repeatable (none: any; an empty value clears)")
	f.Uint32(flagCPUCores, 0, "host CPU cores a job gets per GPU (0: not stated)")
	f.Uint64(flagMemoryMiB, 0, "host memory a job gets per GPU, MiB (0: not stated)")
	f.Uint64(flagDiskGiB, 0, "scratch disk a job gets per GPU, GiB (0: not stated)")
	f.Uint32(flagEgressMbps, 0, "internet egress a job gets per GPU, Mbit/s (0: jobs get no network)")
	f.String(flagIngressDomain, "", "DNS name the ingress serves leases under, as lease-<id>.<domain> (empty: no inbound services)")
	f.String(flagIngressCert, "", "hex SHA-256 of the ingress's self-signed certificate (empty: a public CA signed it)")
}

// applyTermFlags writes the flags the user set into terms. On create every
// term starts empty, so unset lanes and workloads take their defaults.
// Prices are read against metas as post-job reads its --max-price.
func applyTermFlags(cmd *cobra.Command, t *types.OfferTerms, create bool, metas []banktypes.Metadata) error {
	f := cmd.Flags()
	for _, p := range []struct {
		flag string
		dst  **sdk.Coin
	}{{flagPriceOnDemand, &t.PriceOnDemand}, {flagPricePreemptible, &t.PricePreemptible}} {
		if !f.Changed(p.flag) {
			continue
		}
		s, _ := f.GetString(p.flag)
		c, err := units.ParsePrice(s, metas)
		if err != nil {
			return fmt.Errorf("--%s: %w", p.flag, err)
		}
		*p.dst = &c
	}
	if f.Changed(flagLanes) {
		s, _ := f.GetString(flagLanes)
		mask, err := ParseLanes(s)
		if err != nil {
			return err
		}
		t.Lanes = mask
	} else if create || f.Changed(flagPriceOnDemand) || f.Changed(flagPricePreemptible) {
		t.Lanes = pricedLanes(*t, t.Lanes)
	}
	if f.Changed(flagWorkloads) {
		s, _ := f.GetString(flagWorkloads)
		mask, err := ParseWorkloads(s)
		if err != nil {
			return err
		}
		t.Workloads = mask
	} else if create {
		t.Workloads = types.AllWorkloads
	}
	if clear, _ := f.GetBool(flagClearWindows); clear {
		t.Windows = nil
	}
	if f.Changed(flagWindow) {
		specs, _ := f.GetStringArray(flagWindow)
		ws, err := ParseWindows(specs)
		if err != nil {
			return err
		}
		t.Windows = ws
	}
	if f.Changed(flagMaxDuration) {
		s, _ := f.GetString(flagMaxDuration)
		secs, err := ParseDurationSeconds(s)
		if err != nil {
			return fmt.Errorf("--%s: %w", flagMaxDuration, err)
		}
		t.MaxDurationSeconds = secs
	}
	if clear, _ := f.GetBool(flagClearImages); clear {
		t.ImageAllowlist = nil
	}
	if f.Changed(flagImage) {
		t.ImageAllowlist, _ = f.GetStringArray(flagImage)
	}
	if f.Changed(flagImagePrefix) {
		prefixes, _ := f.GetStringArray(flagImagePrefix)
		t.ImagePrefixes = nil
		for _, p := range prefixes {
			if p != "" {
				t.ImagePrefixes = append(t.ImagePrefixes, p)
			}
		}
	}
	if f.Changed(flagCPUCores) {
		t.CpuCoresPerGpu, _ = f.GetUint32(flagCPUCores)
	}
	if f.Changed(flagMemoryMiB) {
		t.MemoryMibPerGpu, _ = f.GetUint64(flagMemoryMiB)
	}
	if f.Changed(flagDiskGiB) {
		t.DiskGibPerGpu, _ = f.GetUint64(flagDiskGiB)
	}
	if f.Changed(flagEgressMbps) {
		t.EgressMbpsPerGpu, _ = f.GetUint32(flagEgressMbps)
	}
	if f.Changed(flagIngressDomain) {
		t.IngressDomain, _ = f.GetString(flagIngressDomain)
	}
	if f.Changed(flagIngressCert) {
		t.IngressTlsCertSha256, _ = f.GetString(flagIngressCert)
	}
	// A lane dropped from the mask takes its price with it, so the terms
	// stay valid when a provider stops selling, say, preemptible.
	if t.Lanes&uint32(types.LANE_ON_DEMAND|types.LANE_RESERVED) == 0 && !f.Changed(flagPriceOnDemand) {
		t.PriceOnDemand = nil
	}
	if t.Lanes&uint32(types.LANE_PREEMPTIBLE) == 0 && !f.Changed(flagPricePreemptible) {
		t.PricePreemptible = nil
	}
	return nil
}

// checkPriceDenoms refuses, before the tx is signed, a price in a denom
// the market does not take (online only).
func checkPriceDenoms(cmd *cobra.Command, clientCtx client.Context, t types.OfferTerms) error {
	if !precheck.Online(clientCtx) {
		return nil
	}
	for _, p := range []struct {
		flag  string
		price *sdk.Coin
	}{{flagPriceOnDemand, t.PriceOnDemand}, {flagPricePreemptible, t.PricePreemptible}} {
		if p.price == nil {
			continue
		}
		if err := precheck.PaymentDenom(cmd.Context(), clientCtx, p.price.Denom); err != nil {
			return fmt.Errorf("--%s: %w", p.flag, err)
		}
	}
	return nil
}

// openWindows keeps the windows that end after cutoff.
func openWindows(ws []types.Window, cutoff time.Time) []types.Window {
	var out []types.Window
	for _, w := range ws {
		if w.End.After(cutoff) {
			out = append(out, w)
		}
	}
	return out
}

// pricedLanes adds the lanes whose price is set to mask (reserved only if
// already there: it must be chosen on purpose).
func pricedLanes(t types.OfferTerms, mask uint32) uint32 {
	if t.PriceOnDemand != nil {
		mask |= uint32(types.LANE_ON_DEMAND)
	}
	if t.PricePreemptible != nil {
		mask |= uint32(types.LANE_PREEMPTIBLE)
	}
	return mask
}
