package endpoint

import (
	"container/list"
	"net/http"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Limits bound what one source address and one renter may ask of the
// endpoint; zero fields take the defaults.
type Limits struct {
	// IPRate and IPBurst: requests per second per source address (an IPv6
	// source counts per /64, what one host is usually given).
	IPRate  float64
	IPBurst int
	// RenterRate and RenterBurst: requests per second per signer.
	RenterRate  float64
	RenterBurst int
	// MaxTracked bounds the sources, signers and leases remembered, each.
	MaxTracked int
	// NotFoundTTL is how long a lease the chain does not show for this
	// provider is answered 404 without asking again.
	NotFoundTTL time.Duration
}

// DefaultLimits are generous for a renter polling status and logs.
func DefaultLimits() Limits {
	return Limits{IPRate: 20, IPBurst: 60, RenterRate: 5, RenterBurst: 30, MaxTracked: 10_000, NotFoundTTL: 5 * time.Second}
}

func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	if l.IPRate == 0 {
		l.IPRate, l.IPBurst = d.IPRate, d.IPBurst
	}
	if l.RenterRate == 0 {
		l.RenterRate, l.RenterBurst = d.RenterRate, d.RenterBurst
	}
	if l.MaxTracked == 0 {
		l.MaxTracked = d.MaxTracked
	}
	if l.NotFoundTTL == 0 {
		l.NotFoundTTL = d.NotFoundTTL
	}
	return l
}

// Option configures a Server.
type Option func(*Server)

// WithLimits sets the server's rate limits.
func WithLimits(l Limits) Option { return func(s *Server) { s.limits = l.withDefaults() } }

// buckets are token buckets per key in a table bounded by an LRU: a key
// evicted comes back with a full bucket, which is the price of bounded memory.
type buckets struct {
	mu    sync.Mutex
	rate  rate.Limit
	burst int
	max   int
	order *list.List // of *bucketEntry, most recent first
	byKey map[string]*list.Element
}

type bucketEntry struct {
	key string
	lim *rate.Limiter
}

func newBuckets(perSec float64, burst, max int) *buckets {
	return &buckets{rate: rate.Limit(perSec), burst: burst, max: max, order: list.New(), byKey: map[string]*list.Element{}}
}

// allow takes a token from key's bucket.
func (b *buckets) allow(key string, now time.Time) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	el, ok := b.byKey[key]
	if ok {
		b.order.MoveToFront(el)
	} else {
		if b.order.Len() >= b.max {
			delete(b.byKey, b.order.Remove(b.order.Back()).(*bucketEntry).key)
		}
		el = b.order.PushFront(&bucketEntry{key: key, lim: rate.NewLimiter(b.rate, b.burst)})
		b.byKey[key] = el
	}
	return el.Value.(*bucketEntry).lim.AllowN(now, 1)
}

func (b *buckets) len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.order.Len()
}

// sourceKey is the rate-limit key of a request's source address, the same
// host grouping as the connection cap's.
func sourceKey(r *http.Request) string { return hostKey(r.RemoteAddr) }

// leaseFacts remembers what never changes about a lease (its renter) and,
// briefly, that the chain does not show it, so requests signed by anyone
// else are refused without a chain query. Bounded by an LRU.
type leaseFacts struct {
	mu    sync.Mutex
	max   int
	order *list.List // of *leaseFact
	byID  map[uint64]*list.Element
}

type leaseFact struct {
	id          uint64
	renter      string    // "" while unknown
	absentUntil time.Time // the chain did not show the lease: 404 until then
}

func newLeaseFacts(max int) *leaseFacts {
	return &leaseFacts{max: max, order: list.New(), byID: map[uint64]*list.Element{}}
}

// get returns what is known of lease id now.
func (c *leaseFacts) get(id uint64, now time.Time) (renter string, absent bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byID[id]
	if !ok {
		return "", false
	}
	f := el.Value.(*leaseFact)
	return f.renter, now.Before(f.absentUntil)
}

func (c *leaseFacts) put(f leaseFact) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.byID[f.id]; ok {
		*el.Value.(*leaseFact) = f
		c.order.MoveToFront(el)
		return
	}
	if c.order.Len() >= c.max {
		delete(c.byID, c.order.Remove(c.order.Back()).(*leaseFact).id)
	}
	c.byID[f.id] = c.order.PushFront(&f)
}
