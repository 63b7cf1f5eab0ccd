package web

import (
	"context"
	"fmt"
	"math"

	sdkmath "cosmossdk.io/math"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/auction/client/marketcheck"
	"github.com/idlegpu/idlegpu/x/auction/client/units"
	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
)

// Before a renter signs, the post page says what the job would meet if it
// cleared now against the standing offers: the chain's own clearing
// (types.Clear over the offers x/offer's Candidates returns, each
// provider judged by types.Serves), so the winners, the price and the cost
// shown are the ones the chain would reach at this height. Bids placed
// during a bid window can only lower the price; offers taken meanwhile can
// leave the job unfilled, which the page says. When nothing would clear,
// it says why: the market check's verdict, then which of the renter's
// limits (price, memory per GPU, region) keeps the nearest offers out.

// clearingPreview is what the post page shows of a job's clearing now.
type clearingPreview struct {
	// Winners, Price and Cost when it would clear.
	Winners []previewWinner
	Price   sdk.Coin
	// Cost is what the job pays if it runs its whole duration at Price;
	// Refund is the escrow left over, back to the renter.
	Cost, Refund sdk.Coin
	// Cheapest is the lowest ask among the winners; SecondPrice is true
	// when the chain pays the runner-up's price, which may be above it.
	Cheapest    sdk.Coin
	SecondPrice bool
	// Partial: the chain returned its limit of offers, so a provider
	// beyond them (cheaper once reliability is weighed) could also win.
	Partial bool
	// Why it would not clear, and which limits keep the nearest offers out.
	Why  string
	Near []string
}

type previewWinner struct {
	Provider, Name string
	OfferID        uint64
	GPUs           int
	Ask            sdk.Coin
	Reliability    uint32
}

// previewClearing clears spec against today's standing offers.
func (s *Server) previewClearing(ctx context.Context, spec auctiontypes.JobSpec, params auctiontypes.Params, escrow sdk.Coin) (*clearingPreview, error) {
	offers, err := marketcheck.Offers(ctx, s.conn, marketcheck.Request(spec))
	if err != nil {
		return nil, err
	}
	reliability, err := marketcheck.Reliability(ctx, s.conn, offers)
	if err != nil {
		return nil, err
	}
	p := &clearingPreview{Partial: len(offers) >= marketcheck.Limit, SecondPrice: params.ClearingRule == auctiontypes.CLEARING_RULE_SECOND_PRICE}
	var cands []auctiontypes.Candidate
	for _, o := range offers {
		r := reliability[o.Provider]
		if !auctiontypes.Serves(params, spec.Tier, r) {
			continue
		}
		op, err := sdk.AccAddressFromBech32(o.Provider)
		if err != nil {
			return nil, err
		}
		cands = append(cands, auctiontypes.Candidate{Provider: op, OfferID: o.OfferId, Price: o.Price.Amount,
			Reliability: r, Seq: auctiontypes.StandingOfferSeq, FreeGPUs: o.FreeGpuUuids})
	}
	out, ok := auctiontypes.Clear(cands, spec.GpuCount, spec.AllowSplit, spec.MaxPrice.Amount, params.ClearingRule)
	if !ok {
		if err := marketcheck.Verdict(spec, params, offers, len(offers) < marketcheck.Limit, reliability); err != nil {
			p.Why = err.Error()
		} else {
			p.Why = "the offers that fit cannot fill it now"
		}
		if len(offers) == 0 {
			p.Near, err = s.nearOffers(ctx, spec)
			if err != nil {
				return nil, err
			}
		}
		return p, nil
	}
	denom := spec.MaxPrice.Denom
	p.Price = sdk.NewCoin(denom, out.Price)
	p.Cost = sdk.NewCoin(denom, sdkmath.ZeroInt())
	p.Cheapest = sdk.NewCoin(denom, out.Winners[0].Price)
	names := s.providerNames(ctx, out.Winners)
	for _, w := range out.Winners {
		op := sdk.AccAddress(w.Provider).String()
		p.Winners = append(p.Winners, previewWinner{Provider: op, Name: names[op], OfferID: w.OfferID, GPUs: len(w.GPUs),
			Ask: sdk.NewCoin(denom, w.Price), Reliability: w.Reliability})
		p.Cost = p.Cost.Add(auctiontypes.Due(p.Price, uint32(len(w.GPUs)), spec.DurationSeconds))
		if w.Price.LT(p.Cheapest.Amount) {
			p.Cheapest = sdk.NewCoin(denom, w.Price)
		}
	}
	if escrow.Amount.GT(p.Cost.Amount) {
		p.Refund = escrow.Sub(p.Cost)
	} else {
		p.Refund = sdk.NewCoin(denom, sdkmath.ZeroInt())
	}
	return p, nil
}

// nearOffers: with no offer fitting the job, which one limit of the
// renter's keeps offers out. Each is relaxed alone; what then fits is
// named with the figure that excluded it.
func (s *Server) nearOffers(ctx context.Context, spec auctiontypes.JobSpec) ([]string, error) {
	var near []string
	if spec.MaxPrice.Amount.IsPositive() {
		req := marketcheck.Request(spec)
		req.MaxPrice = sdk.NewCoin(spec.MaxPrice.Denom, sdkmath.NewIntFromUint64(math.MaxInt64))
		offers, err := marketcheck.Offers(ctx, s.conn, req)
		if err != nil {
			return nil, err
		}
		if len(offers) > 0 {
			near = append(near, fmt.Sprintf("price: %d offer(s) fit at a higher price; the cheapest asks %s/GPU-h, you offer at most %s/GPU-h",
				len(offers), s.units.Coin(offers[0].Price), s.units.Coin(spec.MaxPrice)))
		}
	}
	if spec.MinMemoryMib > 0 {
		req := marketcheck.Request(spec)
		req.MinMemoryMib = 0
		offers, err := marketcheck.Offers(ctx, s.conn, req)
		if err != nil {
			return nil, err
		}
		if len(offers) > 0 {
			near = append(near, fmt.Sprintf("memory: %d offer(s) fit with less memory per GPU than the %s you ask", len(offers), units.MiB(spec.MinMemoryMib)))
		}
	}
	if len(spec.Regions) > 0 {
		req := marketcheck.Request(spec)
		req.Regions = nil
		offers, err := marketcheck.Offers(ctx, s.conn, req)
		if err != nil {
			return nil, err
		}
		if len(offers) > 0 {
			regions := map[string]bool{}
			var list []string
			for _, o := range offers {
				if !regions[o.Region] {
					regions[o.Region] = true
					list = append(list, o.Region)
				}
			}
			near = append(near, fmt.Sprintf("region: %d offer(s) fit outside %v, in %v", len(offers), spec.Regions, list))
		}
	}
	if len(near) == 0 && (spec.MaxPrice.Amount.IsPositive() || spec.MinMemoryMib > 0 || len(spec.Regions) > 0) {
		// More than one limit keeps every offer out: say what fits with
		// none of them.
		req := marketcheck.Request(spec)
		req.MaxPrice = sdk.NewCoin(spec.MaxPrice.Denom, sdkmath.NewIntFromUint64(math.MaxInt64))
		req.MinMemoryMib, req.Regions = 0, nil
		offers, err := marketcheck.Offers(ctx, s.conn, req)
		if err != nil {
			return nil, err
		}
		if len(offers) > 0 {
			near = append(near, fmt.Sprintf("more than one limit: %d offer(s) fit without your price, memory and region limits together; the cheapest asks %s/GPU-h",
				len(offers), s.units.Coin(offers[0].Price)))
		}
	}
	return near, nil
}

// providerNames are the winners' monikers (the address where a provider
// has none or cannot be read).
func (s *Server) providerNames(ctx context.Context, ws []auctiontypes.Winner) map[string]string {
	names := map[string]string{}
	q := providertypes.NewQueryClient(s.conn)
	for _, w := range ws {
		op := sdk.AccAddress(w.Provider).String()
		names[op] = Short(op)
		if res, err := q.Provider(ctx, &providertypes.QueryProviderRequest{Operator: op}); err == nil && res.Provider.Moniker != "" {
			names[op] = res.Provider.Moniker
		}
	}
	return names
}
