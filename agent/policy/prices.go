// Package policy is the provider's pricing and safety policy: price floors
// per model and lane with optional utilisation-based pricing, which jobs are
// acceptable, the weekly availability calendar, and thermal and power limits
// that refuse new work or preempt BRONZE leases.
package policy

import (
	"fmt"

	sdkmath "cosmossdk.io/math"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/agent/config"
)

// Lane is the market lane a price applies to.
type Lane int

const (
	// OnDemand serves GOLD and SILVER work.
	OnDemand Lane = iota
	// Preemptible serves BRONZE work, which may be preempted.
	Preemptible
)

// Prices holds the floors per model.
type Prices struct {
	floors     map[string][2]*sdk.Coin
	dynamicBps uint32
}

// NewPrices parses the configured floors.
func NewPrices(cfg config.Policy) (Prices, error) {
	p := Prices{floors: map[string][2]*sdk.Coin{}, dynamicBps: cfg.DynamicBps}
	for _, f := range cfg.Prices {
		var pair [2]*sdk.Coin
		for lane, s := range []string{f.OnDemand, f.Preemptible} {
			if s == "" {
				continue
			}
			c, err := sdk.ParseCoinNormalized(s)
			if err != nil || !c.IsPositive() {
				return Prices{}, fmt.Errorf("policy price %q for %s: must be a positive coin (%v)", s, f.Model, err)
			}
			pair[lane] = &c
		}
		if _, dup := p.floors[f.Model]; dup {
			return Prices{}, fmt.Errorf("policy prices: %s listed twice", f.Model)
		}
		p.floors[f.Model] = pair
	}
	return p, nil
}

// Floor is the configured floor of a model in a lane.
func (p Prices) Floor(model string, lane Lane) (sdk.Coin, bool) {
	c := p.floors[model][lane]
	if c == nil {
		return sdk.Coin{}, false
	}
	return *c, true
}

// Ask is the price to ask: the floor raised by dynamic_bps × utilisation
// (leased / offered GPUs, in bps), rounded up so it never undercuts the
// floor.
func (p Prices) Ask(model string, lane Lane, utilisationBps uint32) (sdk.Coin, bool) {
	floor, ok := p.Floor(model, lane)
	if !ok {
		return sdk.Coin{}, false
	}
	u := min(utilisationBps, 10_000)
	// floor × (10⁸ + dynamic × u) / 10⁸, ceiling.
	num := floor.Amount.Mul(sdkmath.NewIntFromUint64(100_000_000 + uint64(p.dynamicBps)*uint64(u)))
	den := sdkmath.NewInt(100_000_000)
	amt := num.Add(den).SubRaw(1).Quo(den)
	return sdk.NewCoin(floor.Denom, amt), true
}
