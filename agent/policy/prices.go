// Package policy is the provider's pricing and safety policy: price floors
// per model and lane with optional utilisation-based pricing, which jobs are
// acceptable, the weekly availability calendar, and thermal and power limits
// that refuse new work or preempt BRONZE leases.
package policy

import (
	"fmt"
	"github.com/idlegpu/idlegpu/x/auction/client/units"
	"strings"

	sdkmath "cosmossdk.io/math"

	sdk "github.com/cosmos/cosmos-sdk/types"
	banktypes "github.com/cosmos/cosmos-sdk/x/bank/types"

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

// PriceError is a configured price that cannot be asked on this chain; it
// names the setting so the provider finds the line.
type PriceError struct {
	Index int    // in policy.prices
	Key   string // on_demand or preemptible
	Value string
	Err   error
}

func (e *PriceError) Error() string {
	return fmt.Sprintf("policy.prices[%d].%s = %q: %v", e.Index, e.Key, e.Value, e.Err)
}

func (e *PriceError) Unwrap() error { return e.Err }

// ResolvePrices turns the configured prices into base units of the chain's
// currencies, with the chain's own price parser ("2.5usdc/gpu-h" or
// "2500000uusdc"). A denom that no currency of the chain has is refused:
// the parser would take it as base units of an unknown denom, and an
// offer in it could never be leased.
func ResolvePrices(prices []config.Price, metas []banktypes.Metadata) ([]config.Price, error) {
	var known []string
	bases := map[string]bool{}
	for _, m := range metas {
		bases[m.Base] = true
		known = append(known, m.Base+" or "+m.Display)
	}
	out := make([]config.Price, len(prices))
	for i, p := range prices {
		out[i] = p
		for _, f := range []struct {
			key string
			v   *string
		}{{"on_demand", &out[i].OnDemand}, {"preemptible", &out[i].Preemptible}} {
			if *f.v == "" {
				continue
			}
			fail := func(err error) error { return &PriceError{Index: i, Key: f.key, Value: *f.v, Err: err} }
			c, err := units.ParsePrice(*f.v, metas)
			if err != nil {
				return nil, fail(err)
			}
			if !bases[c.Denom] {
				return nil, fail(fmt.Errorf("%s is not a currency of this chain (its currencies: %s)", c.Denom, strings.Join(known, ", ")))
			}
			if !c.IsPositive() {
				return nil, fail(fmt.Errorf("must be positive"))
			}
			*f.v = c.String()
		}
	}
	return out, nil
}
