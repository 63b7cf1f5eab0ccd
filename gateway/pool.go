package gateway

import (
	"net/url"
	"sort"
	"sync"
	"time"
)

// Upstream is one lease serving the deployment: its ingress address.
type Upstream struct {
	LeaseID uint64
	// URL is the lease's ingress, https://lease-<id>.<provider's domain>.
	URL *url.URL
	// Host, when set, is sent as the Host header instead of URL's host
	// (to reach an ingress by address while naming the lease).
	Host string
	// Region is the provider's region, shown with the upstream's state.
	Region string
}

// ewmaWeight is how much each new latency moves the average: about the
// last ten requests count.
const ewmaWeight = 0.2

// member is an upstream and what the gateway has measured of it.
type member struct {
	up       Upstream
	healthy  bool
	latency  time.Duration // EWMA of the time to the response header
	inflight int
	fails    uint64
	lastErr  string
	downAt   time.Time
}

// pool is one deployment's upstreams. It is safe for concurrent use.
type pool struct {
	mu      sync.Mutex
	members []*member
}

func newPool(ups []Upstream) *pool {
	p := &pool{}
	for _, u := range ups {
		// A new upstream is in rotation until it fails; its latency is
		// unknown, so it is tried before measured ones are preferred.
		p.members = append(p.members, &member{up: u, healthy: true})
	}
	return p
}

// order is the healthy upstreams, best first: lowest latency × (requests
// in flight + 1), unmeasured first, then by lease id. The caller tries
// them in turn.
func (p *pool) order() []*member {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []*member
	for _, m := range p.members {
		if m.healthy {
			out = append(out, m)
		}
	}
	score := func(m *member) time.Duration { return m.latency * time.Duration(m.inflight+1) }
	sort.SliceStable(out, func(i, j int) bool {
		si, sj := score(out[i]), score(out[j])
		if si != sj {
			return si < sj
		}
		return out[i].up.LeaseID < out[j].up.LeaseID
	})
	return out
}

func (p *pool) begin(m *member) {
	p.mu.Lock()
	m.inflight++
	p.mu.Unlock()
}

// abandon ends an attempt the caller gave up, counting nothing against
// the upstream.
func (p *pool) abandon(m *member) {
	p.mu.Lock()
	m.inflight--
	p.mu.Unlock()
}

// done records an attempt: its latency to the response header when it got
// one, or the failure that takes the upstream out of rotation.
func (p *pool) done(m *member, latency time.Duration, err error, now time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	m.inflight--
	if err != nil {
		p.down(m, err, now)
		return
	}
	p.measured(m, latency)
}

func (p *pool) measured(m *member, latency time.Duration) {
	if m.latency == 0 {
		m.latency = latency
	} else {
		m.latency = time.Duration(float64(m.latency)*(1-ewmaWeight) + float64(latency)*ewmaWeight)
	}
}

func (p *pool) down(m *member, err error, now time.Time) {
	if m.healthy {
		m.downAt = now
	}
	m.healthy = false
	m.fails++
	m.lastErr = err.Error()
}

// probed records a health probe: a success puts the upstream back.
func (p *pool) probed(m *member, latency time.Duration, err error, now time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if err != nil {
		p.down(m, err, now)
		return
	}
	m.healthy = true
	m.lastErr = ""
	p.measured(m, latency)
}

// State is what the gateway knows of one upstream, for its status page
// and metrics.
type State struct {
	Upstream Upstream
	Healthy  bool
	Latency  time.Duration
	InFlight int
	Fails    uint64
	LastErr  string
	DownAt   time.Time
}

func (p *pool) states() []State {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]State, 0, len(p.members))
	for _, m := range p.members {
		out = append(out, State{Upstream: m.up, Healthy: m.healthy, Latency: m.latency, InFlight: m.inflight, Fails: m.fails, LastErr: m.lastErr, DownAt: m.downAt})
	}
	return out
}
