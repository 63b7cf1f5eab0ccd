package web

import (
	"testing"

	"github.com/stretchr/testify/require"

	sdk "github.com/cosmos/cosmos-sdk/types"

	offertypes "github.com/idlegpu/idlegpu/x/offer/types"
)

// The market sums every offer once per group, asks only for free GPUs, and
// never compares prices in different denoms.
func TestSummarise(t *testing.T) {
	usdc := func(n int64) *sdk.Coin { c := sdk.NewInt64Coin("uusdc", n); return &c }
	gpu := func(n int64) *sdk.Coin { c := sdk.NewInt64Coin("ugpu", n); return &c }
	offer := func(id uint64, model, region string, gpus, leased int, od, pre *sdk.Coin, lanes uint32) offertypes.Offer {
		o := offertypes.Offer{Id: id, Provider: "p", Model: model, Region: region, Status: offertypes.OFFER_STATUS_OPEN,
			Terms: offertypes.OfferTerms{PriceOnDemand: od, PricePreemptible: pre, Lanes: lanes}}
		for i := range gpus {
			o.GpuUuids = append(o.GpuUuids, string(rune('a'+i)))
		}
		o.OccupiedGpuUuids = o.GpuUuids[:leased]
		return o
	}
	all := uint32(offertypes.LANE_ON_DEMAND | offertypes.LANE_PREEMPTIBLE)
	m := summarise([]offertypes.Offer{
		offer(1, "H100", "eu-de", 4, 1, usdc(2_000_000), usdc(900_000), all),
		offer(2, "H100", "eu-fr", 2, 2, usdc(1_000_000), usdc(500_000), all), // fully leased: asks nothing
		offer(3, "H100", "eu-de", 1, 0, gpu(3_000_000), nil, uint32(offertypes.LANE_ON_DEMAND)),
		offer(4, "L40S", "eu-de", 2, 0, usdc(800_000), nil, uint32(offertypes.LANE_ON_DEMAND)),
	})
	require.Equal(t, 4, m.Offers)
	require.Equal(t, 9, m.GPUs)
	require.Equal(t, 3, m.Leased)
	require.Len(t, m.ByModel, 2)
	h := m.ByModel[0]
	require.Equal(t, "H100", h.Key)
	require.Equal(t, [3]int{3, 7, 3}, [3]int{h.Offers, h.GPUs, h.Leased})
	require.Equal(t, []sdk.Coin{*gpu(3_000_000), *usdc(900_000)}, h.From, "cheapest free ask per denom; offer 2 has nothing free")
	require.Equal(t, uint32(4285), h.FillBps())
	// Lanes: offer 3 sells only on demand.
	require.Equal(t, "on demand", m.ByLane[0].Key)
	require.Equal(t, 4, m.ByLane[0].Offers)
	require.Equal(t, []sdk.Coin{*gpu(3_000_000), *usdc(800_000)}, m.ByLane[0].From)
	// Asks: free GPUs only, cheapest first per model and lane.
	var h100Pre []uint64
	for _, a := range m.Asks {
		if a.Model == "H100" && a.Lane == "preemptible" {
			h100Pre = append(h100Pre, a.OfferID)
		}
	}
	require.Equal(t, []uint64{1}, h100Pre)
}
