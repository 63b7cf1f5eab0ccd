package types

import "fmt"

// StatsCounts are the counts a provider's offers add up to.
type StatsCounts struct {
	Offers, OfferedGPUs, LeasedGPUs uint32
}

// CountsByProvider sums the offers' contributions per provider; order lists
// the providers in first-offer order so callers can report deterministically.
func CountsByProvider(offers []Offer) (counts map[string]*StatsCounts, order []string) {
	counts = map[string]*StatsCounts{}
	for _, o := range offers {
		c := counts[o.Provider]
		if c == nil {
			c = &StatsCounts{}
			counts[o.Provider] = c
			order = append(order, o.Provider)
		}
		if o.Live() {
			c.Offers++
		}
		offered, leased := o.Contribution()
		c.OfferedGPUs += offered
		c.LeasedGPUs += leased
	}
	return counts, order
}

// CheckAgainst reports whether st holds the counts its provider's offers add
// up to (want nil = no offers) and leased GPU-seconds within offered ones.
func (st ProviderStats) CheckAgainst(want *StatsCounts) error {
	if want == nil {
		want = &StatsCounts{}
	}
	if st.Offers != want.Offers || st.OfferedGpus != want.OfferedGPUs || st.LeasedGpus != want.LeasedGPUs {
		return fmt.Errorf("stats of %s: (%d offers, %d offered, %d leased) but its offers add up to (%d, %d, %d)",
			st.Provider, st.Offers, st.OfferedGpus, st.LeasedGpus, want.Offers, want.OfferedGPUs, want.LeasedGPUs)
	}
	if st.LeasedGpuSeconds > st.OfferedGpuSeconds {
		return fmt.Errorf("stats of %s: leased_gpu_seconds %d above offered_gpu_seconds %d", st.Provider, st.LeasedGpuSeconds, st.OfferedGpuSeconds)
	}
	return nil
}
