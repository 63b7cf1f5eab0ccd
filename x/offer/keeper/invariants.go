package keeper

import (
	"context"
	"fmt"

	"cosmossdk.io/collections"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/offer/types"
)

// Invariant is one accounting rule of the module: Check returns what is
// broken, or nil.
type Invariant struct {
	Name  string
	Check func(context.Context) error
}

// Invariants are the module's accounting rules; tests and the simulator run
// them after state changes. Each walks the whole state: never in a block.
func (k Keeper) Invariants() []Invariant {
	return []Invariant{
		{"gpu-in-one-offer", k.GPUsInOneOfferInvariant},
		{"index-matches-offers", k.IndexInvariant},
		{"stats-match-offers", k.StatsInvariant},
	}
}

// CheckInvariants runs every invariant and returns the first broken one.
func (k Keeper) CheckInvariants(ctx context.Context) error {
	for _, inv := range k.Invariants() {
		if err := inv.Check(ctx); err != nil {
			return fmt.Errorf("%s/%s invariant broken: %w", types.ModuleName, inv.Name, err)
		}
	}
	return nil
}

func (k Keeper) allOffers(ctx context.Context) ([]types.Offer, error) {
	var offers []types.Offer
	err := k.Offers.Walk(ctx, nil, func(_ uint64, o types.Offer) (bool, error) {
		offers = append(offers, o)
		return false, nil
	})
	return offers, err
}

// GPUsInOneOfferInvariant: every GPU is in at most one offer; GPUOffers maps
// exactly the offers' GPUs to their offer; each such GPU is registered to the
// offer's provider and committed in x/provider; occupied GPUs are the offer's.
func (k Keeper) GPUsInOneOfferInvariant(ctx context.Context) error {
	offers, err := k.allOffers(ctx)
	if err != nil {
		return err
	}
	seen := map[string]uint64{}
	for _, o := range offers {
		for _, u := range o.GpuUuids {
			if prev, ok := seen[u]; ok {
				return fmt.Errorf("gpu %s is in offers %d and %d", u, prev, o.Id)
			}
			seen[u] = o.Id
			id, err := k.GPUOffers.Get(ctx, u)
			if err != nil || id != o.Id {
				return fmt.Errorf("gpu %s of offer %d maps to offer %d (%v)", u, o.Id, id, err)
			}
			g, err := k.providers.GPU(ctx, u)
			if err != nil {
				return fmt.Errorf("gpu %s of offer %d: %w", u, o.Id, err)
			}
			if g.Provider != o.Provider || !g.Committed {
				return fmt.Errorf("gpu %s of offer %d: owner %s committed %t, want %s committed", u, o.Id, g.Provider, g.Committed, o.Provider)
			}
		}
		for _, u := range o.OccupiedGpuUuids {
			if seen[u] != o.Id {
				return fmt.Errorf("offer %d leases gpu %s it does not hold", o.Id, u)
			}
		}
		if o.Status == types.OFFER_STATUS_CLOSED && len(o.OccupiedGpuUuids) != len(o.GpuUuids) {
			return fmt.Errorf("closed offer %d holds GPUs that are not occupied", o.Id)
		}
	}
	n := 0
	if err := k.GPUOffers.Walk(ctx, nil, func(string, uint64) (bool, error) { n++; return false, nil }); err != nil {
		return err
	}
	if n != len(seen) {
		return fmt.Errorf("gpu_offers has %d entries, the offers hold %d GPUs", n, len(seen))
	}
	return nil
}

// IndexInvariant: both market indexes hold exactly the keys of the OPEN
// offers (one per lane, at the lane's price), and the provider offer set
// holds exactly (provider, id) of every offer.
func (k Keeper) IndexInvariant(ctx context.Context) error {
	offers, err := k.allOffers(ctx)
	if err != nil {
		return err
	}
	for _, idx := range []struct {
		name     string
		set      collections.KeySet[types.IndexKey]
		anyModel bool
	}{{"market_index", k.MarketIndex, false}, {"any_model_index", k.AnyModelIndex, true}} {
		want := 0
		for _, o := range offers {
			for _, key := range o.IndexKeys(idx.anyModel) {
				has, err := idx.set.Has(ctx, key)
				if err != nil {
					return err
				}
				if !has {
					return fmt.Errorf("%s lacks %s of offer %d", idx.name, types.IndexKeyCodec.Stringify(key), o.Id)
				}
				want++
			}
		}
		got := 0
		if err := idx.set.Walk(ctx, nil, func(types.IndexKey) (bool, error) { got++; return false, nil }); err != nil {
			return err
		}
		if got != want {
			return fmt.Errorf("%s has %d keys, the OPEN offers need %d", idx.name, got, want)
		}
	}
	got := 0
	if err := k.ProviderOffers.Walk(ctx, nil, func(key collections.Pair[sdk.AccAddress, uint64]) (bool, error) {
		got++
		o, err := k.Offers.Get(ctx, key.K2())
		if err != nil {
			return true, fmt.Errorf("provider_offers names missing offer %d", key.K2())
		}
		addr, err := k.addressCodec.BytesToString(key.K1())
		if err != nil || addr != o.Provider {
			return true, fmt.Errorf("provider_offers puts offer %d under %s, it is %s's", o.Id, addr, o.Provider)
		}
		return false, nil
	}); err != nil {
		return err
	}
	if got != len(offers) {
		return fmt.Errorf("provider_offers has %d entries for %d offers", got, len(offers))
	}
	return nil
}

// StatsInvariant: each provider's offer and GPU counts equal what its offers
// add up to, and leased GPU-seconds never pass offered ones.
func (k Keeper) StatsInvariant(ctx context.Context) error {
	offers, err := k.allOffers(ctx)
	if err != nil {
		return err
	}
	want, _ := types.CountsByProvider(offers)
	return k.Stats.Walk(ctx, nil, func(_ sdk.AccAddress, st types.ProviderStats) (bool, error) {
		return false, st.CheckAgainst(want[st.Provider])
	})
}
