// Package prover is the agent's proving: every tracked lease's samples in
// durable per-epoch logs, the ring of chain headers a proof binds to, and
// the proofs of ended epochs. The daemon feeds it samples and headers and
// submits what it builds.
package prover

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/idlegpu/idlegpu/agent/proof"
	"github.com/idlegpu/idlegpu/agent/state"
	settlementtypes "github.com/idlegpu/idlegpu/x/settlement/types"
)

// Prover keeps every tracked lease's samples in durable per-epoch logs and
// builds the proofs of ended epochs. The chain's LeaseProgress is the truth
// of what is proven: after a crash the agent asks it, so an epoch is never
// proven twice, and the logs on disk give back every sample taken before
// the crash, so no epoch that ran is lost.
type Prover struct {
	dir          string
	agentVersion string

	// mu guards leases and each one's lease; a lease's logs have their
	// own lock, so an append's fsync holds up that lease only.
	mu     sync.Mutex
	leases map[uint64]*tracked
}

type tracked struct {
	lease proof.Lease

	// logsMu serialises the lease's log access: a SampleLog is not safe
	// for concurrent use.
	logsMu sync.Mutex
	logs   map[uint64]*state.SampleLog // by epoch
	// closed is set once Forget or Close closed the logs.
	closed bool
}

// New keeps sample logs under dir.
func New(dir, agentVersion string) (*Prover, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	return &Prover{dir: dir, agentVersion: agentVersion, leases: map[uint64]*tracked{}}, nil
}

func (p *Prover) leaseDir(id uint64) string { return filepath.Join(p.dir, fmt.Sprintf("lease-%d", id)) }

// Track starts (or, after a restart, resumes) proving a lease: the logs of
// its epochs already on disk are reopened.
func (p *Prover) Track(l proof.Lease) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.leases[l.ID]; ok {
		return nil
	}
	dir := p.leaseDir(l.ID)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	t := &tracked{lease: l, logs: map[uint64]*state.SampleLog{}}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		k, ok := epochOfLogName(e.Name())
		if !ok {
			continue
		}
		log, err := state.OpenSampleLog(filepath.Join(dir, e.Name()))
		if err != nil {
			return err
		}
		t.logs[k] = log
	}
	p.leases[l.ID] = t
	return nil
}

func logName(k uint64) string { return fmt.Sprintf("epoch-%d.log", k) }

func epochOfLogName(name string) (uint64, bool) {
	s, ok := strings.CutPrefix(name, "epoch-")
	if !ok {
		return 0, false
	}
	s, ok = strings.CutSuffix(s, ".log")
	if !ok {
		return 0, false
	}
	k, err := strconv.ParseUint(s, 10, 64)
	return k, err == nil
}

// Cut ends a tracked lease's epochs at durationSeconds (the lease was ended
// early and is CLOSING: its clock stopped there). It never lengthens one.
func (p *Prover) Cut(id, durationSeconds uint64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if t, ok := p.leases[id]; ok && durationSeconds < t.lease.DurationSeconds {
		t.lease.DurationSeconds = durationSeconds
	}
}

// Lease is a tracked lease.
func (p *Prover) Lease(id uint64) (proof.Lease, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	t, ok := p.leases[id]
	if !ok {
		return proof.Lease{}, false
	}
	return t.lease, true
}

// Tracked lists the tracked leases.
func (p *Prover) Tracked() []proof.Lease {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]proof.Lease, 0, len(p.leases))
	for _, t := range p.leases {
		out = append(out, t.lease)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// Record logs a tick's samples of a lease durably, each in its epoch's log
// (samples outside the lease or of other GPUs are ignored).
func (p *Prover) Record(leaseID uint64, samples []settlementtypes.Sample) error {
	p.mu.Lock()
	t, ok := p.leases[leaseID]
	var l proof.Lease
	if ok {
		l = t.lease
	}
	p.mu.Unlock()
	if !ok {
		return fmt.Errorf("lease %d is not tracked", leaseID)
	}
	byEpoch := map[uint64][]settlementtypes.Sample{}
	for _, s := range samples {
		k, ok := l.EpochOf(time.UnixMilli(s.TimestampMs))
		if ok {
			byEpoch[k] = append(byEpoch[k], s)
		}
	}
	t.logsMu.Lock()
	defer t.logsMu.Unlock()
	if t.closed {
		return fmt.Errorf("lease %d is not tracked", leaseID)
	}
	for k, batch := range byEpoch {
		log, ok := t.logs[k]
		if !ok {
			var err error
			if log, err = state.OpenSampleLog(filepath.Join(p.leaseDir(leaseID), logName(k))); err != nil {
				return err
			}
			t.logs[k] = log
		}
		if err := log.Append(batch...); err != nil {
			return err
		}
	}
	return nil
}

// Samples returns the samples epoch's proof commits to, in canonical order
// (for the renter's sample queries and fraud checks): proof.EpochSamples of
// the epoch's log under the lease as it stands, so after an early end the
// cut epoch's samples are the proof's, not everything logged before the cut
// was known.
func (p *Prover) Samples(leaseID, epoch uint64) ([]settlementtypes.Sample, bool) {
	p.mu.Lock()
	t, ok := p.leases[leaseID]
	var l proof.Lease
	if ok {
		l = t.lease
	}
	p.mu.Unlock()
	if !ok {
		return nil, false
	}
	t.logsMu.Lock()
	log := t.logs[epoch]
	if log == nil || t.closed {
		t.logsMu.Unlock()
		return nil, false
	}
	logged := log.Samples()
	t.logsMu.Unlock()
	return proof.EpochSamples(l, epoch, logged)
}

// Due builds the proofs of every tracked lease's ended epochs from
// nextEpoch (what the chain says is settled) on, each bound to a recorded
// header inside its window. An ended epoch with no header yet waits, but
// one whose window the headers show held no block (a halt) is skipped: no
// proof of it can exist, and the chain excuses it when the next epoch's
// proof arrives (x/settlement/keeper/halts.go: emptyWindowsBefore).
func (p *Prover) Due(now time.Time, nextEpoch func(leaseID uint64) (uint64, error), headers *Headers) ([]settlementtypes.ExecutionProof, error) {
	var out []settlementtypes.ExecutionProof
	for _, l := range p.Tracked() {
		next, err := nextEpoch(l.ID)
		if err != nil {
			return nil, fmt.Errorf("lease %d: %w", l.ID, err)
		}
		for k := next; k < l.Epochs(); k++ {
			from, to, _ := l.Window(k)
			if to.After(now) {
				break
			}
			h, ok := headers.In(from, to)
			if !ok && headers.Empty(from, to) {
				continue
			}
			if !ok {
				break // proofs go in order: later epochs wait too
			}
			samples, _ := p.Samples(l.ID, k)
			if len(samples) == 0 {
				// Nothing was sampled in the window (a tail shorter than a
				// sample interval, cut by an early end): the chain excuses
				// such an epoch at its due time; later epochs wait.
				break
			}
			pr, _, err := proof.Build(l, k, samples, h, p.agentVersion)
			if err != nil {
				return nil, fmt.Errorf("lease %d epoch %d: %w", l.ID, k, err)
			}
			out = append(out, pr)
		}
	}
	return out, nil
}

// Forget stops tracking a lease and deletes its logs (it ended and its
// proofs are settled past any fraud report the renter could make).
func (p *Prover) Forget(leaseID uint64) error {
	p.mu.Lock()
	t, ok := p.leases[leaseID]
	p.mu.Unlock()
	if !ok {
		return nil
	}
	if err := t.close(); err != nil {
		return err
	}
	p.mu.Lock()
	delete(p.leases, leaseID)
	p.mu.Unlock()
	return os.RemoveAll(p.leaseDir(leaseID))
}

// Close closes every log.
func (p *Prover) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	var first error
	for _, t := range p.leases {
		if err := t.close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// close closes the lease's logs, after any append under way; later
// appends fail.
func (t *tracked) close() error {
	t.logsMu.Lock()
	defer t.logsMu.Unlock()
	if t.closed {
		return nil
	}
	var first error
	for _, log := range t.logs {
		if err := log.Close(); err != nil && first == nil {
			first = err
		}
	}
	t.closed = true
	return first
}
