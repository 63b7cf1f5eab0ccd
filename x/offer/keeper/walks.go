package keeper

import (
	"context"
	"math"
	"slices"

	"cosmossdk.io/collections"
	sdkmath "cosmossdk.io/math"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/offer/types"
)

// walks serves the candidate walks of one block's clearings (x/auction's
// EndBlock clears up to max_clearings_per_block jobs, and jobs of one
// model and continent walk the same index range). Each range of the market
// index — one (index, lane, model, continent, denom) — is opened once, and
// the entries read from it are kept in order, so the next job of that
// shape walks them from memory and reads on from the same iterator; the
// offers visited are decoded once. Opening an iterator on a block's cache
// store and decoding an offer were most of a clearing's cost
// (docs/benchmarks.md).
//
// A walk visits exactly what a fresh iterator over the store would: the
// only x/offer writes while it is in use are Occupy's, which records
// each occupied offer's index keys after the write, and a kept entry the
// store no longer holds is skipped, uncounted. Iterators over a cache
// store read an isolated copy, so the writes are safe while they are open.
// It is for one goroutine and one block; Close releases its iterators.
// What it keeps is bounded by the block's walks: each reads at most
// q.MaxScan counted entries (max_candidates_per_job), one past its cap, and
// the entries of offers the block's clearings leased.
type walks struct {
	k       Keeper
	streams map[streamKey]*stream
	// opened lists the streams in the order they were made, for Close.
	opened []*stream
	// offers are the offers decoded this block, as they are now.
	offers map[uint64]types.Offer
	// keys are the index keys, after the write, of the offers Occupy
	// changed: a kept entry of such an offer that is not among them has
	// left the store.
	keys map[uint64][]types.IndexKey
}

// streamKey is one range of the market index: every entry of one lane,
// model ("" in the any-model index), continent and denom, by price.
type streamKey struct {
	anyModel  bool
	lane      types.Lane
	model     string
	continent string
	denom     string
}

// stream is a range's entries read so far, cheapest first, and the
// iterator that reads on. bound is the highest price the reads so far
// covered: a walk with a higher cap reopens the range past the last entry.
type stream struct {
	seen  []types.IndexKey
	it    collections.KeySetIterator[types.IndexKey]
	open  bool
	bound sdkmath.Int
}

// NewWalks starts a block's walks.
func (k Keeper) NewWalks() types.Walks {
	return &walks{k: k, streams: map[streamKey]*stream{}, offers: map[uint64]types.Offer{}, keys: map[uint64][]types.IndexKey{}}
}

// Close closes the iterators still open.
func (w *walks) Close() {
	for _, s := range w.opened {
		if s.open {
			s.it.Close()
			s.open = false
		}
	}
}

// Walk visits the OPEN offers that fit q, as Keeper.WalkCandidates
// documents; fn must not write x/offer state except through Occupy after
// the walk has returned.
func (w *walks) Walk(ctx context.Context, q types.CandidateQuery, fn func(types.Candidate) (stop bool, err error)) (uint32, error) {
	if err := q.Validate(); err != nil {
		return 0, err
	}
	cursors := w.cursors(q)
	now := sdk.UnwrapSDKContext(ctx).BlockTime()
	var scanned uint32
	for scanned < q.MaxScan {
		best := -1
		var bestKey types.IndexKey
		for i := range cursors {
			key, ok, err := cursors[i].peek(ctx, w)
			if err != nil {
				return scanned, err
			}
			if ok && (best < 0 || less(key, bestKey)) {
				best, bestKey = i, key
			}
		}
		if best < 0 {
			break
		}
		cursors[best].pos++
		scanned++

		offer, err := w.offer(ctx, bestKey.OfferID)
		if err != nil {
			return scanned, err
		}
		free, ok := fits(offer, q, now)
		if !ok {
			continue
		}
		// The key's denom and price were validated when the offer was
		// stored; NewCoin's regexp check per candidate is not needed.
		stop, err := fn(types.Candidate{Offer: offer, Price: sdk.Coin{Denom: bestKey.Denom, Amount: bestKey.Price}, FreeGPUs: free})
		if err != nil || stop {
			return scanned, err
		}
	}
	return scanned, nil
}

// Occupy leases an offer's GPUs (Keeper.OccupyForLease) and records the
// offer's index keys after the write. The offer is the one this block's
// walks decoded (or read now, for an explicit bid's offer), which is what
// the store holds: Occupy is the only x/offer write while they are in use.
func (w *walks) Occupy(ctx context.Context, offerID uint64, uuids []string) error {
	before, err := w.offer(ctx, offerID)
	if err != nil {
		return err
	}
	after, err := w.k.occupyForLease(ctx, before, uuids)
	if err != nil {
		return err
	}
	w.offers[offerID] = after
	w.keys[offerID] = append(after.IndexKeys(false), after.IndexKeys(true)...)
	return nil
}

// offer is an offer as the store holds it now, decoded once a block.
func (w *walks) offer(ctx context.Context, id uint64) (types.Offer, error) {
	if o, ok := w.offers[id]; ok {
		return o, nil
	}
	o, err := w.k.Offers.Get(ctx, id)
	if err != nil {
		return o, err
	}
	w.offers[id] = o
	return o, nil
}

// held reports whether the store still holds a kept index entry.
func (w *walks) held(key types.IndexKey) bool {
	keys, changed := w.keys[key.OfferID]
	return !changed || slices.ContainsFunc(keys, key.Equal)
}

// cursors are q's ranges (one per model and continent; the any-model
// index when q takes any model; continent "" when it takes any region),
// each from its cheapest entry up to q's price cap.
func (w *walks) cursors(q types.CandidateQuery) []cursor {
	anyModel, models := false, q.Models
	if len(models) == 0 {
		anyModel, models = true, []string{""}
	}
	continents := q.WalkContinents()
	out := make([]cursor, 0, len(models)*len(continents))
	for _, m := range models {
		for _, c := range continents {
			sk := streamKey{anyModel: anyModel, lane: q.Lane, model: m, continent: c, denom: q.MaxPrice.Denom}
			s, ok := w.streams[sk]
			if !ok {
				s = &stream{}
				w.streams[sk] = s
				w.opened = append(w.opened, s)
			}
			out = append(out, cursor{key: sk, s: s, max: q.MaxPrice.Amount})
		}
	}
	return out
}

// cursor is one walk's position in a stream.
type cursor struct {
	key streamKey
	s   *stream
	pos int
	max sdkmath.Int
}

// peek returns the cursor's next entry still in the store and within its
// cap, reading on from the store when the kept entries run out.
func (c *cursor) peek(ctx context.Context, w *walks) (types.IndexKey, bool, error) {
	for {
		for c.pos < len(c.s.seen) {
			key := c.s.seen[c.pos]
			if key.Price.GT(c.max) {
				return types.IndexKey{}, false, nil
			}
			if w.held(key) {
				return key, true, nil
			}
			c.pos++ // left the store this block
		}
		more, err := c.read(ctx, w)
		if err != nil || !more {
			return types.IndexKey{}, false, err
		}
	}
}

// read appends the stream's next entry from the store, reopening the
// range past its last entry when this cursor's cap is above what was
// read. false: nothing more up to the cap.
func (c *cursor) read(ctx context.Context, w *walks) (bool, error) {
	s := c.s
	for {
		if s.open && s.it.Valid() {
			key, err := s.it.Key()
			if err != nil {
				return false, err
			}
			s.it.Next()
			s.seen = append(s.seen, key)
			return true, nil
		}
		if s.open {
			s.it.Close()
			s.open = false
		}
		if !s.bound.IsNil() && !c.max.GT(s.bound) {
			return false, nil
		}
		// The range from past the last entry read up to this cap.
		hi := types.IndexKey{Lane: c.key.lane, Model: c.key.model, Continent: c.key.continent, Denom: c.key.denom, Price: c.max, OfferID: math.MaxUint64}
		r := new(collections.Range[types.IndexKey]).EndInclusive(hi)
		if n := len(s.seen); n > 0 {
			r = r.StartExclusive(s.seen[n-1])
		} else {
			r = r.StartInclusive(types.IndexKey{Lane: c.key.lane, Model: c.key.model, Continent: c.key.continent, Denom: c.key.denom, Price: sdkmath.ZeroInt(), OfferID: 0})
		}
		index := w.k.MarketIndex
		if c.key.anyModel {
			index = w.k.AnyModelIndex
		}
		it, err := index.Iterate(ctx, r)
		if err != nil {
			return false, err
		}
		s.it, s.open, s.bound = it, true, c.max
	}
}
