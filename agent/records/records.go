// Package records is the agent's durable memory of the jobs it runs:
// one record per lease, so a restarted agent re-adopts its jobs, finishes
// starting their leases and goes on proving them (docs/design.md).
package records

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/idlegpu/idlegpu/agent/runner"
	"github.com/idlegpu/idlegpu/agent/state"
)

// Record is what the agent keeps on disk about the job it runs for a
// lease, so that a restarted agent re-adopts the job, finishes starting the
// lease and goes on proving it. The manifest itself (it may hold secrets)
// is not kept: the runner already has it.
type Record struct {
	LeaseID uint64 `json:"lease_id"`
	JobID   uint64 `json:"job_id"`
	Renter  string `json:"renter"`
	Image   string `json:"image"`
	// ImageDigest is the job's image digest, named in every proof.
	ImageDigest string    `json:"image_digest"`
	GPUs        []string  `json:"gpus"`
	Tier        string    `json:"tier"`
	Runner      string    `json:"runner"`
	Accepted    time.Time `json:"accepted"`
	// Started is set once MsgStartLease is in a block.
	Started bool `json:"started"`
	// StartSent is set before MsgStartLease goes out: from then on only
	// the chain can tell whether the lease started, so the record stays
	// until the lease is seen ACTIVE or ended.
	StartSent bool `json:"start_sent,omitempty"`
	// Ended is when the agent saw the lease end (zero while it runs); the
	// record and the samples are dropped a while later (the reconciler's KeepFinished).
	Ended time.Time `json:"ended,omitzero"`
	// Status is the lease's last status the agent saw.
	Status string `json:"status,omitempty"`
}

// Store is the durable set of job records, one JSON file written
// atomically on every change.
type Store struct {
	path string
	mu   sync.Mutex
	m    map[uint64]Record
}

// Open loads the records under dir.
func Open(dir string) (*Store, error) {
	r := &Store{path: filepath.Join(dir, "jobs.json"), m: map[uint64]Record{}}
	var list []Record
	if _, err := state.LoadJSON(r.path, &list); err != nil {
		return nil, fmt.Errorf("job records: %w", err)
	}
	for _, rec := range list {
		r.m[rec.LeaseID] = rec
	}
	return r, nil
}

// Get returns a lease's record.
func (r *Store) Get(leaseID uint64) (Record, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	rec, ok := r.m[leaseID]
	return rec, ok
}

// All returns every record by lease id.
func (r *Store) All() []Record {
	r.mu.Lock()
	defer r.mu.Unlock()
	ids := slices.Sorted(maps.Keys(r.m))
	out := make([]Record, 0, len(ids))
	for _, id := range ids {
		out = append(out, r.m[id])
	}
	return out
}

// Put stores a record durably.
func (r *Store) Put(rec Record) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	old, had := r.m[rec.LeaseID]
	r.m[rec.LeaseID] = rec
	if err := r.saveLocked(); err != nil {
		if had {
			r.m[rec.LeaseID] = old
		} else {
			delete(r.m, rec.LeaseID)
		}
		return err
	}
	return nil
}

// Delete drops a record durably.
func (r *Store) Delete(leaseID uint64) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	old, had := r.m[leaseID]
	if !had {
		return nil
	}
	delete(r.m, leaseID)
	if err := r.saveLocked(); err != nil {
		r.m[leaseID] = old
		return err
	}
	return nil
}

func (r *Store) saveLocked() error {
	ids := slices.Sorted(maps.Keys(r.m))
	list := make([]Record, 0, len(ids))
	for _, id := range ids {
		list = append(list, r.m[id])
	}
	return state.SaveJSON(r.path, list)
}

// Spec is the runner spec of a recorded job, as far as Adopt needs it.
func (rec Record) Spec() runner.Spec {
	return runner.Spec{LeaseID: rec.LeaseID, Image: rec.Image, GPUs: rec.GPUs}
}
