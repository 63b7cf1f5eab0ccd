package types_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/offer/types"
)

var (
	alice = sdk.AccAddress([]byte("alice_______________")).String()
	bob   = sdk.AccAddress([]byte("bob_________________")).String()
)

func uuid(i int) string { return fmt.Sprintf("GPU-%08x-1111-2222-3333-444455556666", i) }

func validOffer(id uint64, provider string, gpus ...string) types.Offer {
	return types.Offer{
		Id: id, Provider: provider, GpuUuids: gpus, Model: "NVIDIA H100 80GB HBM3", MemoryMib: 81559, Region: "eu-de",
		Terms:  types.OfferTerms{PriceOnDemand: usdc(2_000_000), Lanes: uint32(types.LANE_ON_DEMAND), Workloads: types.AllWorkloads},
		Status: types.OFFER_STATUS_OPEN, CreatedAt: t0, UpdatedAt: t0,
	}
}

// validGenesis: alice has an open offer of 2 GPUs (1 leased) and a closed
// offer whose last GPU is leased; bob a paused offer.
func validGenesis() types.GenesisState {
	o1 := validOffer(1, alice, uuid(1), uuid(2))
	o1.OccupiedGpuUuids = []string{uuid(2)}
	o2 := validOffer(2, alice, uuid(3))
	o2.Status, o2.OccupiedGpuUuids = types.OFFER_STATUS_CLOSED, []string{uuid(3)}
	o4 := validOffer(4, bob, uuid(4))
	o4.Status = types.OFFER_STATUS_PAUSED
	stats := []types.ProviderStats{
		{Provider: alice, Offers: 1, OfferedGpus: 3, LeasedGpus: 2, OfferedGpuSeconds: 100, LeasedGpuSeconds: 50, Since: t0, UpdatedAt: t0},
		{Provider: bob, Offers: 1, Since: t0, UpdatedAt: t0},
	}
	types.SortStats(stats)
	return types.GenesisState{Params: marketParams(), Offers: []types.Offer{o1, o2, o4}, NextOfferId: 5, ProviderStats: stats}
}

func TestGenesisValidateOffers(t *testing.T) {
	ok := validGenesis()
	require.NoError(t, ok.Validate())

	cases := []struct {
		name   string
		edit   func(*types.GenesisState)
		expErr string
	}{
		{"next id zero", func(g *types.GenesisState) { g.NextOfferId = 0 }, "next_offer_id must be at least 1"},
		{"id not below next", func(g *types.GenesisState) { g.NextOfferId = 4 }, "offer 4: id must be in [1, next_offer_id=4)"},
		{"ids unsorted", func(g *types.GenesisState) { g.Offers[0], g.Offers[1] = g.Offers[1], g.Offers[0] }, "sorted by id"},
		{"GPU in two offers", func(g *types.GenesisState) { g.Offers[2].GpuUuids = []string{uuid(1)} }, "is in offers 1 and 4"},
		{"leased GPU not the offer's", func(g *types.GenesisState) { g.Offers[0].OccupiedGpuUuids = []string{uuid(9)} }, "leased_gpu_uuids must be offer GPUs"},
		{"closed offer with a free GPU", func(g *types.GenesisState) { g.Offers[1].OccupiedGpuUuids = nil }, "closed offer must hold only leased GPUs"},
		{"unknown status", func(g *types.GenesisState) { g.Offers[0].Status = 7 }, "invalid status 7"},
		{"no GPUs", func(g *types.GenesisState) { g.Offers[2].GpuUuids = nil }, "an offer needs at least one GPU"},
		{"bad price", func(g *types.GenesisState) { g.Offers[0].Terms.PriceOnDemand = usdc(0) }, "must be positive"},
		{"bad region", func(g *types.GenesisState) { g.Offers[0].Region = "EU" }, "invalid region"},
		{"bad provider", func(g *types.GenesisState) { g.Offers[0].Provider = "idle1nope" }, "provider \"idle1nope\""},
		{"no model", func(g *types.GenesisState) { g.Offers[0].Model = "" }, "model \"\""},
		{"updated before created", func(g *types.GenesisState) { g.Offers[0].UpdatedAt = t0.Add(-1) }, "updated_at before created_at"},
		{"stats counts off", func(g *types.GenesisState) { g.ProviderStats[0].OfferedGpus++ }, "but its offers add up to"},
		{"stats missing", func(g *types.GenesisState) { g.ProviderStats = g.ProviderStats[:1] }, "has offers but no provider_stats"},
		{"stats unsorted", func(g *types.GenesisState) {
			g.ProviderStats[0], g.ProviderStats[1] = g.ProviderStats[1], g.ProviderStats[0]
		}, "sorted by provider"},
		{"leased seconds above offered", func(g *types.GenesisState) {
			for i := range g.ProviderStats {
				g.ProviderStats[i].LeasedGpuSeconds = g.ProviderStats[i].OfferedGpuSeconds + 1
			}
		}, "above offered_gpu_seconds"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := validGenesis()
			tc.edit(&g)
			err := g.Validate()
			require.ErrorIs(t, err, types.ErrInvalidGenesis)
			require.ErrorContains(t, err, tc.expErr)
		})
	}
}
