package daemon

import (
	"maps"
	"slices"
	"sync"

	"github.com/idlegpu/idlegpu/agent/runner"
	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
	settlementtypes "github.com/idlegpu/idlegpu/x/settlement/types"
)

// registry holds the state of every lease the daemon knows, shared by the
// worker, the sampler and the renter endpoint. Its lock guards memory
// only and is held for a few map operations: callers take copies (get,
// snapshot) and do their I/O (chain queries, job stops, sample-log
// writes) after it is released, so a slow disk or node never stalls the
// others.
type registry struct {
	mu     sync.Mutex
	leases map[uint64]*lease
	// recent are the last ticks' readings, for backfill. They share the
	// lock with the leases so that a lease becoming tracked takes the kept
	// ticks in the same critical section in which later ticks start to see
	// it tracked: each tick is the lease's once.
	recent []sampleTick
	// recentMax bounds recent (0: recentTicks).
	recentMax int
}

// leaseSamples are samples to write to a lease's logs.
type leaseSamples struct {
	id      uint64
	samples []settlementtypes.Sample
}

func newRegistry() *registry { return &registry{leases: map[uint64]*lease{}} }

// get is a copy of a lease's state; found is false for a lease with none.
func (r *registry) get(id uint64) (l lease, found bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	st, ok := r.leases[id]
	if !ok {
		return lease{id: id}, false
	}
	return st.clone(), true
}

// job is a lease's live job handle, or nil.
func (r *registry) job(id uint64) runner.Job {
	l, _ := r.get(id)
	return l.job
}

// setJob sets (nil: drops) a lease's job handle.
func (r *registry) setJob(id uint64, job runner.Job) {
	r.update(id, func(l *lease) { l.job = job })
}

// update changes a lease's state, created if missing; one left with
// nothing in it is dropped. f runs under the lock: it must not block.
func (r *registry) update(id uint64, f func(l *lease)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	f(r.entry(id))
	r.prune(id)
}

// entry is a lease's state, created if missing. The caller holds r.mu.
func (r *registry) entry(id uint64) *lease {
	l, ok := r.leases[id]
	if !ok {
		l = &lease{id: id}
		r.leases[id] = l
	}
	return l
}

// prune drops a lease's state that holds nothing. The caller holds r.mu.
func (r *registry) prune(id uint64) {
	if l, ok := r.leases[id]; ok && l.empty() {
		delete(r.leases, id)
	}
}

// remove forgets a lease.
func (r *registry) remove(id uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.leases, id)
}

// snapshot is a copy of every lease's state, by id.
func (r *registry) snapshot() []lease {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]lease, 0, len(r.leases))
	for _, id := range slices.Sorted(maps.Keys(r.leases)) {
		out = append(out, r.leases[id].clone())
	}
	return out
}

// list records the leases the chain lists for the provider (PENDING,
// ACTIVE and CLOSING): any other is listed no more. It returns those not
// listed before, and whether none was.
func (r *registry) list(chain []auctiontypes.Lease) (fresh []auctiontypes.Lease, none bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	none = true
	seen := make(map[uint64]bool, len(r.leases))
	for id, l := range r.leases {
		if l.listed {
			none = false
			seen[id] = true
		}
		l.listed, l.chain = false, auctiontypes.Lease{}
	}
	for _, cl := range chain {
		l := r.entry(cl.Id)
		l.listed, l.chain = true, cl
		if !seen[cl.Id] {
			fresh = append(fresh, cl)
		}
	}
	for id := range r.leases {
		r.prune(id)
	}
	return fresh, none
}

// queuePreempt queues the leases preemptible on a GPU over a limit for
// preemption, and reports whether one was not queued yet.
func (r *registry) queuePreempt(uuid, reason string) (queued bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, l := range r.leases {
		if l.preemptibleOn(uuid) && l.preempt == "" {
			l.preempt, queued = reason, true
		}
	}
	return queued
}

// takePreempts empties the preemption queue: the reasons by lease.
func (r *registry) takePreempts() map[uint64]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[uint64]string{}
	for id, l := range r.leases {
		if l.preempt != "" {
			out[id], l.preempt = l.preempt, ""
			r.prune(id)
		}
	}
	return out
}

// setRecentBound sets how many ticks are kept for backfill.
func (r *registry) setRecentBound(n int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.recentMax = n
}

// recentBound is how many ticks are kept for backfill.
func (r *registry) recentBound() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.recentBoundLocked()
}

func (r *registry) recentBoundLocked() int {
	if r.recentMax > 0 {
		return r.recentMax
	}
	return recentTicks
}

// kept is a copy of the ticks kept for backfill, oldest first.
func (r *registry) kept() []sampleTick {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.recent)
}

// addTick keeps a tick for backfill and returns what each lease being
// proven takes from it: take is asked for every ACTIVE tracked lease with
// a job, under the lock (it must not block). The caller writes the
// samples after, outside the lock.
func (r *registry) addTick(t sampleTick, take func(l *lease) []settlementtypes.Sample) []leaseSamples {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.recent = append(r.recent, t)
	if n := r.recentBoundLocked(); len(r.recent) > n {
		r.recent = slices.Delete(r.recent, 0, len(r.recent)-n)
	}
	var out []leaseSamples
	for _, id := range slices.Sorted(maps.Keys(r.leases)) {
		l := r.leases[id]
		if !l.tracked || l.job == nil || !l.active() {
			continue
		}
		if s := take(l); len(s) > 0 {
			out = append(out, leaseSamples{id: id, samples: s})
		}
	}
	return out
}

// track marks a lease tracked and returns what backfill takes from the
// kept ticks, in one critical section with addTick's: every tick reaches
// the lease once, from here or from addTick. backfill runs under the lock
// (it must not block); the caller writes the samples after.
func (r *registry) track(id uint64, backfill func(l *lease, kept []sampleTick) []settlementtypes.Sample) []settlementtypes.Sample {
	r.mu.Lock()
	defer r.mu.Unlock()
	l := r.entry(id)
	l.tracked = true
	if backfill == nil {
		return nil
	}
	return backfill(l, r.recent)
}
