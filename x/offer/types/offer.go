package types

import (
	"slices"

	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
)

// FreeGPUs returns the offer's GPUs in no lease, in gpu_uuids order.
func (o Offer) FreeGPUs() []string {
	free := make([]string, 0, len(o.GpuUuids)-len(o.OccupiedGpuUuids))
	for _, u := range o.GpuUuids {
		if !slices.Contains(o.OccupiedGpuUuids, u) {
			free = append(free, u)
		}
	}
	return free
}

// Contribution is what the offer adds to its provider's stats: offered GPUs
// (all of an OPEN offer's, only the leased ones otherwise, since a leased GPU
// is sold capacity whatever the offer's status) and leased GPUs. So leased ≤
// offered always, and the fill rate never passes 100%.
func (o Offer) Contribution() (offered, leased uint32) {
	leased = uint32(len(o.OccupiedGpuUuids))
	if o.Status == OFFER_STATUS_OPEN {
		return uint32(len(o.GpuUuids)), leased
	}
	return leased, leased
}

// Live reports whether the offer counts against max_offers_per_provider.
func (o Offer) Live() bool {
	return o.Status == OFFER_STATUS_OPEN || o.Status == OFFER_STATUS_PAUSED
}

// IndexKeys returns the offer's market index keys, two per lane it sells
// on (every-region and its continent's); anyModel gives the any-model
// index's keys (model left empty). An offer that is not OPEN, or has every
// GPU in a lease, has none: a busy market's walk never scans full offers.
func (o Offer) IndexKeys(anyModel bool) []IndexKey {
	if o.Status != OFFER_STATUS_OPEN || len(o.OccupiedGpuUuids) >= len(o.GpuUuids) {
		return nil
	}
	model := o.Model
	if anyModel {
		model = ""
	}
	var keys []IndexKey
	for _, l := range Lanes(o.Terms.Lanes) {
		p, ok := o.Terms.Price(l)
		if !ok {
			continue
		}
		for _, c := range []string{"", providertypes.RegionContinent(o.Region)} {
			keys = append(keys, IndexKey{Lane: l, Model: model, Continent: c, Denom: p.Denom, Price: p.Amount, OfferID: o.Id})
		}
	}
	return keys
}
