package web

import (
	"cmp"
	"context"
	"slices"
	"sync"
	"time"

	sdkmath "cosmossdk.io/math"
	"google.golang.org/grpc"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/cosmos/cosmos-sdk/types/query"

	"github.com/idlegpu/idlegpu/indexer"
	offertypes "github.com/idlegpu/idlegpu/x/offer/types"
	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
)

// marketTTL is how long one read of every offer serves the market page: a
// block is about a second, and a market of 10,000 offers must not be read
// from the node on every request.
const marketTTL = time.Second

// offerPage is how many offers one Search call asks for.
const offerPage = 1000

// Market is the standing capacity, summed from every open offer.
type Market struct {
	At       time.Time
	Offers   int
	GPUs     int
	Leased   int
	ByModel  []Capacity
	ByRegion []Capacity
	ByLane   []Capacity
	// Asks are every open offer's price on each lane it sells with a free
	// GPU, cheapest first (by denom, then price, then offer id); the page
	// filters, sorts and pages them (asks.go).
	Asks []Ask
}

// Capacity is GPUs offered, leased and free in one group, with the
// cheapest price asked for a free GPU in it in each payment denom (prices in
// different denoms are not compared).
type Capacity struct {
	Key          string
	Offers       int
	GPUs, Leased int
	From         []sdk.Coin
	cheapest     map[string]sdkmath.Int
}

// Free is what can be rented now.
func (c Capacity) Free() int { return c.GPUs - c.Leased }

// FillBps is leased over offered, in bps.
func (c Capacity) FillBps() uint32 {
	if c.GPUs == 0 {
		return 0
	}
	return uint32(c.Leased * 10_000 / c.GPUs)
}

// Ask is one offer's price on one lane.
type Ask struct {
	OfferID  uint64
	Provider string
	Model    string
	Region   string
	Lane     string
	MemMiB   uint64
	Free     int
	Price    sdkmath.Int
	Denom    string
	// The offer's limits: per GPU, the host's CPU cores, memory and disk
	// and the egress it sells; the longest job it takes (0: any).
	CPUPerGPU     uint32
	RAMMiBPerGPU  uint64
	DiskGiBPerGPU uint64
	EgressMbps    uint32
	MaxDuration   uint64
	// From the provider's record: its name, its reliability (the index's
	// latest, or the chain's initial one for a provider with no change yet)
	// and how its GPUs' audits ended.
	Name                       string
	ReliabilityBps             uint32
	AuditsPassed, AuditsFailed int64
}

// marketCache keeps the latest Market. A request never waits for the node
// once there is one: when it is older than marketTTL the request is served
// it and one background read replaces it (reading 10,000 offers takes about
// a quarter of a second; docs/benchmarks.md). Only the very first read, at
// start, is waited for.
type marketCache struct {
	mu         sync.Mutex
	at         time.Time
	m          *Market
	refreshing bool
	conn       grpc.ClientConnInterface
	db         *indexer.DB
	now        func() time.Time
	log        func(err error)
}

func (c *marketCache) get(ctx context.Context) (*Market, error) {
	c.mu.Lock()
	if c.m == nil {
		defer c.mu.Unlock()
		return c.read(ctx)
	}
	m := c.m
	if c.now().Sub(c.at) >= marketTTL && !c.refreshing {
		c.refreshing = true
		go c.refresh()
	}
	c.mu.Unlock()
	return m, nil
}

// read reads the market with c.mu held.
func (c *marketCache) read(ctx context.Context) (*Market, error) {
	m, err := readMarket(ctx, c.conn, c.db)
	if err != nil {
		return nil, err
	}
	c.m, c.at = m, c.now()
	m.At = c.at
	return m, nil
}

// refresh replaces the market in the background; a failed read keeps the
// old one (and is logged) until the next request tries again.
func (c *marketCache) refresh() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	m, err := readMarket(ctx, c.conn, c.db)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.refreshing = false
	if err != nil {
		if c.log != nil {
			c.log(err)
		}
		return
	}
	c.m, c.at = m, c.now()
	m.At = c.at
}

// readMarket pages through every open offer the node will match (its
// provider can take work), sums them, and names each ask's provider with
// its record.
func readMarket(ctx context.Context, conn grpc.ClientConnInterface, db *indexer.DB) (*Market, error) {
	q := offertypes.NewQueryClient(conn)
	var offers []offertypes.Offer
	var key []byte
	for {
		res, err := q.Search(ctx, &offertypes.QuerySearchRequest{
			Status:     offertypes.OFFER_STATUS_OPEN,
			Pagination: &query.PageRequest{Key: key, Limit: offerPage},
		})
		if err != nil {
			return nil, err
		}
		offers = append(offers, res.Offers...)
		if res.Pagination == nil || len(res.Pagination.NextKey) == 0 {
			break
		}
		key = res.Pagination.NextKey
	}
	m := summarise(offers)
	if err := describeProviders(ctx, conn, db, m.Asks); err != nil {
		return nil, err
	}
	return m, nil
}

// describeProviders fills in each ask's provider name (x/provider, one
// page of 1,000 providers per call) and record (the index, in one query;
// a provider with no reputation change yet is at x/provider's initial
// reliability).
func describeProviders(ctx context.Context, conn grpc.ClientConnInterface, db *indexer.DB, asks []Ask) error {
	if len(asks) == 0 {
		return nil
	}
	pq := providertypes.NewQueryClient(conn)
	params, err := pq.Params(ctx, &providertypes.QueryParamsRequest{})
	if err != nil {
		return err
	}
	names := map[string]string{}
	var key []byte
	for {
		res, err := pq.Providers(ctx, &providertypes.QueryProvidersRequest{Pagination: &query.PageRequest{Key: key, Limit: offerPage}})
		if err != nil {
			return err
		}
		for _, p := range res.Providers {
			names[p.Operator] = p.Moniker
		}
		if res.Pagination == nil || len(res.Pagination.NextKey) == 0 {
			break
		}
		key = res.Pagination.NextKey
	}
	records, err := db.ProviderRecords(ctx)
	if err != nil {
		return err
	}
	for i := range asks {
		a := &asks[i]
		a.Name = names[a.Provider]
		a.ReliabilityBps = params.Params.InitialReliabilityBps
		if r, ok := records[a.Provider]; ok {
			if r.HasReputation {
				a.ReliabilityBps = r.ReliabilityBps
			}
			a.AuditsPassed, a.AuditsFailed = r.AuditsPassed, r.AuditsFailed
		}
	}
	return nil
}

// lanes in the order the page lists them.
var lanes = []offertypes.Lane{offertypes.LANE_ON_DEMAND, offertypes.LANE_PREEMPTIBLE, offertypes.LANE_RESERVED}

// lanePrice is an offer's price on a lane (reserved sells at the on-demand
// price), or nil when it does not sell there.
func lanePrice(o offertypes.Offer, l offertypes.Lane) *sdkmath.Int {
	if o.Terms.Lanes&uint32(l) == 0 {
		return nil
	}
	p := o.Terms.PriceOnDemand
	if l == offertypes.LANE_PREEMPTIBLE {
		p = o.Terms.PricePreemptible
	}
	if p == nil || p.Amount.IsNil() {
		return nil
	}
	return &p.Amount
}

func summarise(offers []offertypes.Offer) *Market {
	m := &Market{Offers: len(offers)}
	byModel, byRegion, byLane := map[string]*Capacity{}, map[string]*Capacity{}, map[string]*Capacity{}
	add := func(groups map[string]*Capacity, key string, o offertypes.Offer, prices map[string]sdkmath.Int) {
		c := groups[key]
		if c == nil {
			c = &Capacity{Key: key}
			groups[key] = c
		}
		c.Offers++
		c.GPUs += len(o.GpuUuids)
		c.Leased += len(o.OccupiedGpuUuids)
		if len(o.GpuUuids) == len(o.OccupiedGpuUuids) {
			return // nothing free to ask a price for
		}
		for denom, price := range prices {
			if cur, ok := c.cheapest[denom]; !ok || price.LT(cur) {
				if c.cheapest == nil {
					c.cheapest = map[string]sdkmath.Int{}
				}
				c.cheapest[denom] = price
			}
		}
	}
	asks := map[string][]Ask{}
	for _, o := range offers {
		m.GPUs += len(o.GpuUuids)
		m.Leased += len(o.OccupiedGpuUuids)
		free := len(o.GpuUuids) - len(o.OccupiedGpuUuids)
		cheapest := map[string]sdkmath.Int{}
		for _, l := range lanes {
			p := lanePrice(o, l)
			if p == nil {
				continue
			}
			d := o.Terms.PriceOnDemand
			if l == offertypes.LANE_PREEMPTIBLE {
				d = o.Terms.PricePreemptible
			}
			if cur, ok := cheapest[d.Denom]; !ok || p.LT(cur) {
				cheapest[d.Denom] = *p
			}
			name := Enum(l.String(), "LANE_")
			add(byLane, name, o, map[string]sdkmath.Int{d.Denom: *p})
			if free > 0 {
				k := o.Model + "\x00" + name + "\x00" + d.Denom
				asks[k] = append(asks[k], Ask{
					OfferID: o.Id, Provider: o.Provider, Model: o.Model, Region: o.Region, Lane: name,
					MemMiB: o.MemoryMib, Free: free, Price: *p, Denom: d.Denom,
					CPUPerGPU: o.Terms.CpuCoresPerGpu, RAMMiBPerGPU: o.Terms.MemoryMibPerGpu, DiskGiBPerGPU: o.Terms.DiskGibPerGpu,
					EgressMbps: o.Terms.EgressMbpsPerGpu, MaxDuration: o.Terms.MaxDurationSeconds,
				})
			}
		}
		add(byModel, o.Model, o, cheapest)
		add(byRegion, o.Region, o, cheapest)
	}
	m.ByModel, m.ByRegion, m.ByLane = sorted(byModel), sorted(byRegion), sorted(byLane)
	for _, a := range asks {
		m.Asks = append(m.Asks, a...)
	}
	slices.SortFunc(m.Asks, func(x, y Ask) int {
		if c := cmp.Compare(x.Denom, y.Denom); c != 0 {
			return c
		}
		if c := x.Price.BigInt().Cmp(y.Price.BigInt()); c != 0 {
			return c
		}
		if c := cmp.Compare(x.OfferID, y.OfferID); c != 0 {
			return c
		}
		return cmp.Compare(x.Lane, y.Lane)
	})
	return m
}

func sorted(groups map[string]*Capacity) []Capacity {
	out := make([]Capacity, 0, len(groups))
	for _, c := range groups {
		for d, p := range c.cheapest {
			c.From = append(c.From, sdk.NewCoin(d, p))
		}
		slices.SortFunc(c.From, func(a, b sdk.Coin) int { return cmp.Compare(a.Denom, b.Denom) })
		out = append(out, *c)
	}
	slices.SortFunc(out, func(a, b Capacity) int {
		if c := cmp.Compare(b.GPUs, a.GPUs); c != 0 {
			return c
		}
		return cmp.Compare(a.Key, b.Key)
	})
	return out
}
