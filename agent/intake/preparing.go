package intake

import (
	"context"
	"sync"
	"time"
)

// refusalKept is how long the reason a lease was refused after its
// manifest was accepted stays in its status: the renter's window to read
// it, well past any PENDING lease's start deadline.
const refusalKept = 24 * time.Hour

// preparations are the leases whose manifest was accepted and whose job
// waits for its inputs: fetching can outlast any request, so the endpoint
// answers at once and the status says what is happening, then why the
// lease was refused if the fetch failed. At most one per PENDING lease of
// this provider, and refusals are dropped after refusalKept.
type preparations struct {
	mu   sync.Mutex
	m    map[uint64]*Preparation
	once sync.Once
	ctx  context.Context
	stop context.CancelFunc
	wg   sync.WaitGroup
}

// Preparation is what a lease's preparation is doing, or why it failed.
type Preparation struct {
	What    string // e.g. "fetching 2 inputs"
	Refused string // why it failed ("": still running)
	at      time.Time
}

func (p *preparations) init() {
	p.once.Do(func() {
		p.m = map[uint64]*Preparation{}
		p.ctx, p.stop = context.WithCancel(context.Background())
	})
}

// begin records a lease's preparation and runs f on a goroutine of its
// own, with a context that Close cancels; f's error refuses the lease.
func (p *preparations) begin(leaseID uint64, what string, f func(ctx context.Context) error) {
	p.init()
	now := time.Now()
	p.mu.Lock()
	for id, x := range p.m {
		if x.Refused != "" && now.Sub(x.at) > refusalKept {
			delete(p.m, id)
		}
	}
	p.m[leaseID] = &Preparation{What: what, at: now}
	p.mu.Unlock()
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		err := f(p.ctx)
		p.mu.Lock()
		defer p.mu.Unlock()
		if err != nil {
			p.m[leaseID] = &Preparation{What: what, Refused: err.Error(), at: time.Now()}
			return
		}
		delete(p.m, leaseID)
	}()
}

// get is a lease's preparation: what it is doing, or why it was refused.
func (p *preparations) get(leaseID uint64) (Preparation, bool) {
	p.init()
	p.mu.Lock()
	defer p.mu.Unlock()
	x, ok := p.m[leaseID]
	if !ok {
		return Preparation{}, false
	}
	return *x, true
}

// running is what a lease's preparation under way is doing.
func (p *preparations) running(leaseID uint64) (string, bool) {
	x, ok := p.get(leaseID)
	if !ok || x.Refused != "" {
		return "", false
	}
	return x.What, true
}

// close cancels the preparations under way and waits for them: a fetch
// cut short leaves its lease PENDING, and the renter's manifest sent again
// to the restarted agent fetches afresh (the cache keeps what was done).
func (p *preparations) close() {
	p.init()
	p.stop()
	p.wg.Wait()
}

// Preparing is a lease's preparation: what it is doing, or why it was
// refused (kept refusalKept).
func (in *Intake) Preparing(leaseID uint64) (Preparation, bool) { return in.prep.get(leaseID) }

// Close cancels the preparations under way and waits for them: a fetch
// cut short leaves its lease PENDING, and the renter's manifest sent again
// to the restarted agent fetches afresh (the cache keeps what was done).
func (in *Intake) Close() { in.prep.close() }
