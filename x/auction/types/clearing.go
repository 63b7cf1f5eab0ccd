package types

import (
	"bytes"
	"cmp"
	"math"
	"math/bits"
	"slices"

	sdkmath "cosmossdk.io/math"
)

// StandingOfferSeq ranks standing offers after every explicit bid when
// scores tie (ties go to the earlier bid).
const StandingOfferSeq = math.MaxUint64

// Candidate is one provider's way to serve a job at clearing: an explicit
// bid or a standing offer.
type Candidate struct {
	Provider    []byte // operator address bytes: the last tie-break
	OfferID     uint64
	Price       sdkmath.Int // ask per GPU-hour
	Reliability uint32      // bps, > 0
	Seq         uint64      // bid order; StandingOfferSeq for standing offers
	FreeGPUs    []string    // GPUs it can give, in order
}

// Better reports whether a ranks before b: lower effective price
// price × 10000 / reliability (compared exactly, by cross-multiplying, so
// no rounding decides), then the earlier bid, then lower provider bytes.
func Better(a, b Candidate) bool {
	if c := CmpEffective(a, b); c != 0 {
		return c < 0
	}
	if a.Seq != b.Seq {
		return a.Seq < b.Seq
	}
	if c := bytes.Compare(a.Provider, b.Provider); c != 0 {
		return c < 0
	}
	return a.OfferID < b.OfferID
}

// CmpEffective compares a.price × b.reliability with b.price ×
// a.reliability: exactly, in 128-bit arithmetic when both prices fit in 64
// bits (every real price), else in big integers. Clearing sorts candidates
// with it, so it must not allocate in the common case.
func CmpEffective(a, b Candidate) int {
	if a.Price.IsUint64() && b.Price.IsUint64() {
		lh, ll := bits.Mul64(a.Price.Uint64(), uint64(b.Reliability))
		rh, rl := bits.Mul64(b.Price.Uint64(), uint64(a.Reliability))
		if lh != rh {
			return cmp.Compare(lh, rh)
		}
		return cmp.Compare(ll, rl)
	}
	l := a.Price.Mul(sdkmath.NewIntFromUint64(uint64(b.Reliability)))
	r := b.Price.Mul(sdkmath.NewIntFromUint64(uint64(a.Reliability)))
	return l.BigIntMut().Cmp(r.BigIntMut())
}

// Winner is a candidate that serves part of a job with GPUs.
type Winner struct {
	Candidate
	GPUs []string
}

// Outcome is a clearing's result.
type Outcome struct {
	Winners []Winner
	// RunnerUp is the best candidate that did not win, if any.
	RunnerUp *Candidate
	// Price is the uniform price per GPU-hour every winner is paid.
	Price sdkmath.Int
}

// Clear picks the winners of a job among candidates and the price they are
// paid (docs/design.md#clearing). One lease per provider: only each provider's best
// candidate competes. Without split, the winner is the best candidate with
// gpuCount free GPUs; with split, the best candidates in turn until the
// count is met (all-or-nothing). The runner-up is the next candidate that
// could have taken the winners' place.
//
// SECOND_PRICE pays the highest price at which every winner would still
// have beaten the runner-up: min over winners of
// floor(runner-up price × winner reliability / runner-up reliability) (the
// runner-up's effective price × the winner's reliability / 10000), capped at
// maxPrice and never below a winner's ask; with no runner-up, the highest
// ask among the winners. FIRST_PRICE pays the highest ask among the winners
// (its own ask for a single winner). ok is false when the job cannot be filled.
func Clear(cands []Candidate, gpuCount uint32, allowSplit bool, maxPrice sdkmath.Int, rule ClearingRule) (Outcome, bool) {
	ranked := bestPerProvider(cands)
	var out Outcome
	need := int(gpuCount)
	next := 0
	for ; next < len(ranked) && need > 0; next++ {
		c := ranked[next]
		switch {
		case !allowSplit && len(c.FreeGPUs) >= need:
			out.Winners = []Winner{{Candidate: c, GPUs: c.FreeGPUs[:need]}}
			need = 0
		case allowSplit && len(c.FreeGPUs) > 0:
			n := min(need, len(c.FreeGPUs))
			out.Winners = append(out.Winners, Winner{Candidate: c, GPUs: c.FreeGPUs[:n]})
			need -= n
		}
	}
	if need > 0 {
		return Outcome{}, false
	}
	for ; next < len(ranked); next++ {
		if c := ranked[next]; (allowSplit && len(c.FreeGPUs) > 0) || len(c.FreeGPUs) >= int(gpuCount) {
			out.RunnerUp = &c
			break
		}
	}
	maxAsk := out.Winners[0].Price
	for _, w := range out.Winners[1:] {
		maxAsk = sdkmath.MaxInt(maxAsk, w.Price)
	}
	out.Price = maxAsk
	if rule == CLEARING_RULE_SECOND_PRICE && out.RunnerUp != nil {
		ru := out.RunnerUp
		p := maxPrice
		for _, w := range out.Winners {
			bound := ru.Price.Mul(sdkmath.NewIntFromUint64(uint64(w.Reliability))).QuoRaw(int64(ru.Reliability))
			p = sdkmath.MinInt(p, bound)
		}
		out.Price = sdkmath.MaxInt(p, maxAsk)
	}
	return out, true
}

// bestPerProvider ranks the candidates and keeps each provider's best.
// A job usually has a handful of candidates, and the stop rule clears them
// several times as it walks, so up to scanDedupe of them a provider seen
// before is found by a scan of those kept, without allocating a map; past
// that (max_candidates_per_job has no upper bound) a map keeps it linear.
func bestPerProvider(cands []Candidate) []Candidate {
	ranked := slices.Clone(cands)
	slices.SortStableFunc(ranked, func(a, b Candidate) int {
		if Better(a, b) {
			return -1
		}
		if Better(b, a) {
			return 1
		}
		return 0
	})
	out := ranked[:0]
	var kept map[string]bool
	if len(ranked) > scanDedupe {
		kept = make(map[string]bool, len(ranked))
	}
	for _, c := range ranked {
		var seen bool
		if kept != nil {
			seen = kept[string(c.Provider)]
			kept[string(c.Provider)] = true
		} else {
			seen = slices.ContainsFunc(out, func(k Candidate) bool { return bytes.Equal(k.Provider, c.Provider) })
		}
		if !seen {
			out = append(out, c)
		}
	}
	return out
}

// scanDedupe is the most candidates bestPerProvider dedupes by scanning.
const scanDedupe = 32
