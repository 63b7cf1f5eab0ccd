package cli

import (
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/require"

	sdkmath "cosmossdk.io/math"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/base/chaincfg"
	"github.com/idlegpu/idlegpu/x/offer/types"
)

func TestOpenWindowsDropsEndedOnes(t *testing.T) {
	now := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	ended := types.Window{Start: now.Add(-2 * time.Hour), End: now.Add(-time.Hour)}
	endingNow := types.Window{Start: now.Add(-time.Hour), End: now}
	running := types.Window{Start: now.Add(-time.Hour), End: now.Add(time.Hour)}
	later := types.Window{Start: now.Add(2 * time.Hour), End: now.Add(3 * time.Hour)}
	require.Equal(t, []types.Window{running, later}, openWindows([]types.Window{ended, endingNow, running, later}, now))
	require.Nil(t, openWindows([]types.Window{ended}, now))
}

func TestPricedLanes(t *testing.T) {
	p := &sdk.Coin{Denom: "uusdc", Amount: sdkmath.NewInt(5)}
	require.Equal(t, uint32(types.LANE_ON_DEMAND), pricedLanes(types.OfferTerms{PriceOnDemand: p}, 0))
	require.Equal(t, types.AllLanes, pricedLanes(types.OfferTerms{PriceOnDemand: p, PricePreemptible: p}, uint32(types.LANE_RESERVED)))
}

func TestTermFlagsSetImagePrefixesAndResources(t *testing.T) {
	cmd := CreateOfferCmd()
	require.NoError(t, cmd.Flags().Parse([]string{"--price-on-demand", "2000000uusdc", "--image-prefix", "ghcr.io/acme/",
		"--image-prefix", "docker.io/library/", "--cpu-cores-per-gpu", "16", "--memory-mib-per-gpu", "131072", "--disk-gib-per-gpu", "500",
		"--egress-mbps-per-gpu", "1000"}))
	var terms types.OfferTerms
	require.NoError(t, applyTermFlags(cmd, &terms, true, chaincfg.DenomMetadata()))
	require.Equal(t, []string{"ghcr.io/acme/", "docker.io/library/"}, terms.ImagePrefixes)
	require.Equal(t, uint32(16), terms.CpuCoresPerGpu)
	require.Equal(t, uint64(131072), terms.MemoryMibPerGpu)
	require.Equal(t, uint64(500), terms.DiskGibPerGpu)
	require.Equal(t, uint32(1000), terms.EgressMbpsPerGpu)

	cmd = UpdateOfferCmd()
	require.NoError(t, cmd.Flags().Parse([]string{"--image-prefix", "", "--disk-gib-per-gpu", "0"}))
	require.NoError(t, applyTermFlags(cmd, &terms, false, chaincfg.DenomMetadata()))
	require.Nil(t, terms.ImagePrefixes, "an empty prefix clears the list")
	require.Zero(t, terms.DiskGibPerGpu)
	require.Equal(t, uint32(16), terms.CpuCoresPerGpu, "what is not named is kept")
	require.Equal(t, uint32(1000), terms.EgressMbpsPerGpu, "what is not named is kept")

	cmd = UpdateOfferCmd()
	require.NoError(t, cmd.Flags().Parse([]string{"--egress-mbps-per-gpu", "0"}))
	require.NoError(t, applyTermFlags(cmd, &terms, false, chaincfg.DenomMetadata()))
	require.Zero(t, terms.EgressMbpsPerGpu, "0 takes the network away")
}

// TestTermFlagsReadPricesLikePostJob: an offer's prices read as a job's
// --max-price does, so a provider and a renter comparing prices write
// them alike; a bare number is refused, not taken as base units.
func TestTermFlagsReadPricesLikePostJob(t *testing.T) {
	for _, v := range []string{"2usdc/gpu-h", "2 USDC", "2000000uusdc", "2000000uusdc/gpu-h"} {
		for _, flag := range []string{flagPriceOnDemand, flagPricePreemptible} {
			var terms types.OfferTerms
			require.NoError(t, applyTermFlags(parsedOffer(t, CreateOfferCmd(), "--"+flag, v), &terms, true, chaincfg.DenomMetadata()), v)
			price := terms.PriceOnDemand
			if flag == flagPricePreemptible {
				price = terms.PricePreemptible
			}
			require.Equal(t, "2000000uusdc", price.String(), "--%s %s", flag, v)
		}
	}
	var terms types.OfferTerms
	err := applyTermFlags(parsedOffer(t, UpdateOfferCmd(), "--price-on-demand", "2000000"), &terms, false, chaincfg.DenomMetadata())
	require.EqualError(t, err, `--price-on-demand: "2000000" has no denom: add one, e.g. 2usdc or 2000000uusdc`)
	err = applyTermFlags(parsedOffer(t, UpdateOfferCmd(), "--price-preemptible", "0.0000001usdc"), &terms, false, chaincfg.DenomMetadata())
	require.EqualError(t, err, `--price-preemptible: "0.0000001usdc" is a fraction of a base unit: usdc has 6 decimals, the smallest step is 0.000001usdc (1uusdc)`)
}

// parsedOffer is cmd with args parsed, as cobra parses them before RunE.
func parsedOffer(t *testing.T, cmd *cobra.Command, args ...string) *cobra.Command {
	t.Helper()
	require.NoError(t, cmd.Flags().Parse(args))
	return cmd
}
