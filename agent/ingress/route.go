package ingress

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/idlegpu/idlegpu/internal/hostname"
	offertypes "github.com/idlegpu/idlegpu/x/offer/types"
)

// Route is one lease's service as the proxy serves it.
type Route struct {
	LeaseID uint64
	// Host is the lease's hostname, HostFor(lease, domain).
	Host string
	// Target is the lease's container port on this machine:
	// http://127.0.0.1:<port>. Nothing else is ever forwarded to.
	Target *url.URL
	// Ends is the lease's end: requests are refused from then on and
	// streams still open are cut at it.
	Ends time.Time
	// Rate is each key's sustained requests per second and Burst how many
	// it may send at once.
	Rate  rate.Limit
	Burst int
}

// HostFor is a lease's hostname under the provider's domain, by the
// chain's rule (offertypes.LeaseHostname) on the domain's canonical form.
func HostFor(lease uint64, domain string) string {
	return offertypes.LeaseHostname(lease, hostname.Canonical(domain))
}

// Errors of the route table.
var (
	ErrBadRoute     = errors.New("ingress: bad route")
	ErrHostTaken    = errors.New("ingress: host serves another lease")
	ErrUnknownLease = errors.New("ingress: no route for the lease")
)

// Table is the proxy's routes, changed as leases start and end, and each
// lease's keys and meter. It is safe for concurrent use.
type Table struct {
	mu       sync.RWMutex
	byHost   map[string]*entry
	byLease  map[uint64]*entry
	reserved map[string]bool
	// services is the runner's service network: targets in it are jobs'
	// containers (invalid: loopback targets only).
	services netip.Prefix
}

// entry is one lease's route with its keys and meter.
type entry struct {
	route Route
	meter *Meter

	mu   sync.Mutex
	keys map[KeyHash]*rate.Limiter
}

// NewTable makes an empty table. reserved are host:port addresses no route
// may target: the agent's own endpoint and metrics listeners.
func NewTable(reserved ...string) *Table {
	t := &Table{byHost: map[string]*entry{}, byLease: map[uint64]*entry{}, reserved: map[string]bool{}}
	for _, a := range reserved {
		t.reserved[a] = true
	}
	return t
}

// AllowServices lets routes target jobs' containers on the runner's service
// network (runner.ServiceNetwork.Subnet), besides loopback ports.
func (t *Table) AllowServices(subnet netip.Prefix) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.services = subnet.Masked()
}

// Set adds a lease's route or changes it (a new end, a new port); the
// lease's keys and meter are kept.
func (t *Table) Set(r Route) error {
	if err := t.check(r); err != nil {
		return err
	}
	r.Host = strings.ToLower(r.Host)
	t.mu.Lock()
	defer t.mu.Unlock()
	if other, ok := t.byHost[r.Host]; ok && other.route.LeaseID != r.LeaseID {
		return fmt.Errorf("%w: %s is lease %d's", ErrHostTaken, r.Host, other.route.LeaseID)
	}
	e, ok := t.byLease[r.LeaseID]
	if !ok {
		e = &entry{meter: &Meter{}, keys: map[KeyHash]*rate.Limiter{}}
		t.byLease[r.LeaseID] = e
	} else if e.route.Host != r.Host {
		delete(t.byHost, e.route.Host)
	}
	e.mu.Lock()
	// A changed limit applies to each key's bucket as it stands: setting a
	// route again never refills a bucket.
	for _, lim := range e.keys {
		lim.SetLimit(r.Rate)
		lim.SetBurst(r.Burst)
	}
	e.route = r
	e.mu.Unlock()
	t.byHost[r.Host] = e
	return nil
}

// check refuses a route the proxy must not serve: one to anything but a
// loopback port or a container on the service network, or to a reserved
// address, or to one of this host's own addresses on that network (its
// bridge).
func (t *Table) check(r Route) error {
	switch {
	case r.LeaseID == 0:
		return fmt.Errorf("%w: no lease id", ErrBadRoute)
	case r.Host == "" || strings.ContainsAny(r.Host, ":/ "):
		return fmt.Errorf("%w: host %q", ErrBadRoute, r.Host)
	case r.Ends.IsZero():
		return fmt.Errorf("%w: lease %d has no end", ErrBadRoute, r.LeaseID)
	case r.Rate <= 0 || r.Burst <= 0:
		return fmt.Errorf("%w: lease %d's rate %v, burst %d", ErrBadRoute, r.LeaseID, r.Rate, r.Burst)
	case r.Target == nil || r.Target.Scheme != "http" || r.Target.Path != "" && r.Target.Path != "/":
		return fmt.Errorf("%w: target %v is not http://host:port", ErrBadRoute, r.Target)
	}
	target, err := netip.ParseAddrPort(r.Target.Host)
	if err != nil || target.Port() == 0 {
		return fmt.Errorf("%w: target %s is not an address and port", ErrBadRoute, r.Target.Host)
	}
	ip := target.Addr().Unmap()
	t.mu.RLock()
	defer t.mu.RUnlock()
	switch {
	case t.reserved[r.Target.Host]:
		return fmt.Errorf("%w: target %s is the agent's own", ErrBadRoute, r.Target.Host)
	case ip.IsLoopback():
		return nil
	case !t.services.IsValid() || !t.services.Contains(ip):
		return fmt.Errorf("%w: target %s is neither a loopback port nor on the service network", ErrBadRoute, r.Target.Host)
	case ip == t.services.Addr() || hostAddr(ip):
		return fmt.Errorf("%w: target %s is this host's, not a job's", ErrBadRoute, r.Target.Host)
	}
	return nil
}

// hostAddr tells whether ip is one of this host's interface addresses.
func hostAddr(ip netip.Addr) bool {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return true // unknown: refused
	}
	for _, a := range addrs {
		if p, err := netip.ParsePrefix(a.String()); err == nil && p.Addr().Unmap() == ip {
			return true
		}
	}
	return false
}

// Route is a lease's route as set, if it has one.
func (t *Table) Route(lease uint64) (Route, bool) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	e, ok := t.byLease[lease]
	if !ok {
		return Route{}, false
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.route, true
}

// Leases are the leases with a route, in no order.
func (t *Table) Leases() []uint64 {
	t.mu.RLock()
	defer t.mu.RUnlock()
	out := make([]uint64, 0, len(t.byLease))
	for id := range t.byLease {
		out = append(out, id)
	}
	return out
}

// Remove drops a lease's route, keys and meter, and returns what the meter
// counted last.
func (t *Table) Remove(lease uint64) (Snapshot, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	e, ok := t.byLease[lease]
	if !ok {
		return Snapshot{}, false
	}
	delete(t.byLease, lease)
	delete(t.byHost, e.route.Host)
	return e.meter.Snapshot(), true
}

// AddKey lets a key (by its hash) call the lease's service.
func (t *Table) AddKey(lease uint64, h KeyHash) error {
	e := t.lease(lease)
	if e == nil {
		return fmt.Errorf("%w %d", ErrUnknownLease, lease)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if _, ok := e.keys[h]; !ok {
		e.keys[h] = rate.NewLimiter(e.route.Rate, e.route.Burst)
	}
	return nil
}

// RevokeKey stops a key at once: its next request is refused.
func (t *Table) RevokeKey(lease uint64, h KeyHash) {
	if e := t.lease(lease); e != nil {
		e.mu.Lock()
		delete(e.keys, h)
		e.mu.Unlock()
	}
}

// Meter is what the lease's meter has counted so far.
func (t *Table) Meter(lease uint64) (Snapshot, bool) {
	e := t.lease(lease)
	if e == nil {
		return Snapshot{}, false
	}
	return e.meter.Snapshot(), true
}

func (t *Table) lease(id uint64) *entry {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.byLease[id]
}

// lookup is the entry serving host (no port, any case).
func (t *Table) lookup(host string) *entry {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.byHost[host]
}

// snapshot is the entry's route and the key's limiter (nil: not a key of
// this lease).
func (e *entry) snapshot(h KeyHash) (Route, *rate.Limiter) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.route, e.keys[h]
}
