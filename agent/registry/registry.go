// Package registry is the agent's lease registry: the state of every lease
// the daemon knows (as the chain lists it, its job, whether it is proven
// and on its GPUs, preemption), shared by the worker, the sampler and the
// renter endpoint, and the last ticks kept for backfill.
package registry

import (
	"maps"
	"slices"
	"sync"

	"github.com/idlegpu/idlegpu/agent/runner"
	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
	settlementtypes "github.com/idlegpu/idlegpu/x/settlement/types"
)

// Registry holds the state of every lease the daemon knows, shared by the
// worker, the sampler and the renter endpoint. Its lock guards memory
// only and is held for a few map operations: callers take copies (Get,
// Snapshot) and do their I/O (chain queries, job stops, sample-log
// writes) after it is released, so a slow disk or node never stalls the
// others.
type Registry struct {
	mu     sync.Mutex
	leases map[uint64]*Lease
	// recent are the last ticks' readings, for backfill. They share the
	// lock with the leases so that a lease becoming tracked takes the kept
	// ticks in the same critical section in which later ticks start to see
	// it tracked: each tick is the lease's once.
	recent []SampleTick
	// recentMax bounds recent (0: RecentTicks).
	recentMax int
}

// LeaseSamples are samples to write to a lease's logs.
type LeaseSamples struct {
	ID      uint64
	Samples []settlementtypes.Sample
}

func NewRegistry() *Registry { return &Registry{leases: map[uint64]*Lease{}} }

// Get is a copy of a lease's state; found is false for a lease with none.
func (r *Registry) Get(id uint64) (l Lease, found bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	st, ok := r.leases[id]
	if !ok {
		return Lease{ID: id}, false
	}
	return st.Clone(), true
}

// Job is a lease's live job handle, or nil.
func (r *Registry) Job(id uint64) runner.Job {
	l, _ := r.Get(id)
	return l.Job
}

// SetJob sets (nil: drops) a lease's job handle.
func (r *Registry) SetJob(id uint64, job runner.Job) {
	r.Update(id, func(l *Lease) { l.Job = job })
}

// Update changes a lease's state, created if missing; one left with
// nothing in it is dropped. f runs under the lock: it must not block.
func (r *Registry) Update(id uint64, f func(l *Lease)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	f(r.entry(id))
	r.prune(id)
}

// entry is a lease's state, created if missing. The caller holds r.mu.
func (r *Registry) entry(id uint64) *Lease {
	l, ok := r.leases[id]
	if !ok {
		l = &Lease{ID: id}
		r.leases[id] = l
	}
	return l
}

// prune drops a lease's state that holds nothing. The caller holds r.mu.
func (r *Registry) prune(id uint64) {
	if l, ok := r.leases[id]; ok && l.Empty() {
		delete(r.leases, id)
	}
}

// Remove forgets a lease.
func (r *Registry) Remove(id uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.leases, id)
}

// Snapshot is a copy of every lease's state, by id.
func (r *Registry) Snapshot() []Lease {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]Lease, 0, len(r.leases))
	for _, id := range slices.Sorted(maps.Keys(r.leases)) {
		out = append(out, r.leases[id].Clone())
	}
	return out
}

// List records the leases the chain lists for the provider (PENDING,
// ACTIVE and CLOSING): any other is listed no more. It returns those not
// listed before, and whether none was.
func (r *Registry) List(chain []auctiontypes.Lease) (fresh []auctiontypes.Lease, none bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	none = true
	seen := make(map[uint64]bool, len(r.leases))
	for id, l := range r.leases {
		if l.Listed {
			none = false
			seen[id] = true
		}
		l.Listed, l.Chain = false, auctiontypes.Lease{}
	}
	for _, cl := range chain {
		l := r.entry(cl.Id)
		l.Listed, l.Chain = true, cl
		if !seen[cl.Id] {
			fresh = append(fresh, cl)
		}
	}
	for id := range r.leases {
		r.prune(id)
	}
	return fresh, none
}

// QueuePreempt queues the leases preemptible on a GPU over a limit for
// preemption, and reports whether one was not queued yet.
func (r *Registry) QueuePreempt(uuid, reason string) (queued bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, l := range r.leases {
		if l.PreemptibleOn(uuid) && l.Preempt == "" {
			l.Preempt, queued = reason, true
		}
	}
	return queued
}

// TakePreempts empties the preemption queue: the reasons by lease.
func (r *Registry) TakePreempts() map[uint64]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[uint64]string{}
	for id, l := range r.leases {
		if l.Preempt != "" {
			out[id], l.Preempt = l.Preempt, ""
			r.prune(id)
		}
	}
	return out
}

// SetRecentBound sets how many ticks are kept for backfill.
func (r *Registry) SetRecentBound(n int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.recentMax = n
}

// RecentBound is how many ticks are kept for backfill.
func (r *Registry) RecentBound() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.recentBoundLocked()
}

func (r *Registry) recentBoundLocked() int {
	if r.recentMax > 0 {
		return r.recentMax
	}
	return RecentTicks
}

// Kept is a copy of the ticks Kept for backfill, oldest first.
func (r *Registry) Kept() []SampleTick {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.recent)
}

// AddTick keeps a tick for backfill and returns what each lease being
// proven takes from it: take is asked for every ACTIVE tracked lease with
// a job, under the lock (it must not block). The caller writes the
// samples after, outside the lock.
func (r *Registry) AddTick(t SampleTick, take func(l *Lease) []settlementtypes.Sample) []LeaseSamples {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.recent = append(r.recent, t)
	if n := r.recentBoundLocked(); len(r.recent) > n {
		r.recent = slices.Delete(r.recent, 0, len(r.recent)-n)
	}
	var out []LeaseSamples
	for _, id := range slices.Sorted(maps.Keys(r.leases)) {
		l := r.leases[id]
		if !l.Tracked || l.Job == nil || !l.Active() {
			continue
		}
		if s := take(l); len(s) > 0 {
			out = append(out, LeaseSamples{ID: id, Samples: s})
		}
	}
	return out
}

// Track marks a lease tracked and returns what backfill takes from the
// kept ticks, in one critical section with addTick's: every tick reaches
// the lease once, from here or from addTick. backfill runs under the lock
// (it must not block); the caller writes the samples after.
func (r *Registry) Track(id uint64, backfill func(l *Lease, kept []SampleTick) []settlementtypes.Sample) []settlementtypes.Sample {
	r.mu.Lock()
	defer r.mu.Unlock()
	l := r.entry(id)
	l.Tracked = true
	if backfill == nil {
		return nil
	}
	return backfill(l, r.recent)
}
