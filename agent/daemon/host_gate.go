package daemon

import (
	"errors"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/idlegpu/idlegpu/agent/hostcheck"
)

// hostGate turns rounds of host checks into one verdict with hysteresis:
// the first failing round withdraws the offers (renters are protected at
// once), and only rounds passing for recoverAfter without a break restore
// them. A flapping part thus costs at most one pause and one reopen per
// recoverAfter, never a transaction per round.
type hostGate struct {
	recoverAfter time.Duration

	mu        sync.Mutex
	unhealthy bool
	reasons   []string
	okSince   time.Time
	results   []hostcheck.Result
}

func newHostGate(recoverAfter time.Duration) *hostGate {
	return &hostGate{recoverAfter: recoverAfter}
}

// observe takes one round's results at now and reports whether the
// verdict changed.
func (g *hostGate) observe(rs []hostcheck.Result, now time.Time) (changed bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.results = slices.Clone(rs)
	var reasons []string
	for _, r := range hostcheck.Failing(rs) {
		reasons = append(reasons, r.String())
	}
	if len(reasons) > 0 {
		g.reasons, g.okSince = reasons, time.Time{}
		changed, g.unhealthy = !g.unhealthy, true
		return changed
	}
	if !g.unhealthy {
		return false
	}
	if g.okSince.IsZero() {
		g.okSince = now
	}
	if now.Sub(g.okSince) < g.recoverAfter {
		return false
	}
	g.unhealthy, g.reasons, g.okSince = false, nil, time.Time{}
	return true
}

// verdict is whether the machine is unhealthy and why (the last failing
// round's reasons, kept while it recovers).
func (g *hostGate) verdict() (unhealthy bool, reasons []string) {
	if g == nil {
		return false, nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.unhealthy, slices.Clone(g.reasons)
}

// refusal is why no new lease may start here, nil when one may.
func (g *hostGate) refusal() error {
	if bad, reasons := g.verdict(); bad {
		return errors.New("this machine cannot run jobs now: " + strings.Join(reasons, "; "))
	}
	return nil
}
