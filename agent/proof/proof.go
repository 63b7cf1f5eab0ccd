// Package proof turns GPU telemetry into x/settlement's proofs of
// execution: it converts readings to samples, assigns them to a lease's
// epochs, and builds each epoch's summary and samples root with the chain's
// own canonical encoding and Merkle tree (x/settlement/types), bound to a
// block header inside the epoch's window.
package proof

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/idlegpu/idlegpu/agent/gpu"
	settlementtypes "github.com/idlegpu/idlegpu/x/settlement/types"
)

// Lease is what the agent needs of a lease to prove it.
type Lease struct {
	ID uint64
	// GPUs are the lease's GPU UUIDs, in the lease's order.
	GPUs []string
	// Start is when the lease started (its epochs count from here).
	Start time.Time
	// DurationSeconds is the lease's length.
	DurationSeconds uint64
	// EpochSeconds is the epoch length x/settlement fixed for the lease.
	EpochSeconds uint64
	// ImageDigest is the job's image digest, named in every proof.
	ImageDigest string
}

// Header is a block the proof binds to as its challenge.
type Header struct {
	Height int64
	Hash   []byte
	Time   time.Time
}

// Epochs is the number of epochs of the lease.
func (l Lease) Epochs() uint64 { return settlementtypes.EpochCount(l.DurationSeconds, l.EpochSeconds) }

// Window is epoch k's window [from, to].
func (l Lease) Window(k uint64) (from, to time.Time, ok bool) {
	return settlementtypes.EpochWindow(l.Start, l.DurationSeconds, l.EpochSeconds, k)
}

// EpochOf returns the epoch whose window holds t: windows are half-open
// [from, to) except the last, which includes its end. ok is false outside
// the lease.
func (l Lease) EpochOf(t time.Time) (uint64, bool) {
	if t.Before(l.Start) || l.EpochSeconds == 0 {
		return 0, false
	}
	k := uint64(t.Sub(l.Start) / (time.Duration(l.EpochSeconds) * time.Second))
	n := l.Epochs()
	switch {
	case k < n-1:
		return k, true
	case n == 0:
		return 0, false
	}
	_, to, _ := l.Window(n - 1)
	if t.After(to) {
		return 0, false
	}
	return n - 1, true
}

// ToSample turns a reading into a sample; procs counts the PIDs on the GPU
// that belong to the job (isJob), which is what procs_min must prove.
func ToSample(r gpu.Reading, isJob func(pid uint32) bool) settlementtypes.Sample {
	procs := uint32(0)
	for _, pid := range r.PIDs {
		if isJob(pid) {
			procs++
		}
	}
	return settlementtypes.Sample{
		GpuUuid: r.UUID, TimestampMs: r.Time.UnixMilli(), UtilBps: r.UtilBps, MemUsedMib: r.MemUsedMiB,
		EnergyMj: r.EnergyMJ, PowerMw: r.PowerMW, TempC: r.TempC, SmClockMhz: r.SMClockMHz, Procs: procs,
		XidErrors: r.XIDErrors,
	}
}

// ErrNoChallenge is returned when the header is not inside the window.
var ErrNoChallenge = errors.New("challenge header outside the epoch window")

// EpochSamples are the samples epoch k's proof commits to, in canonical
// order: of those given, the lease's GPUs' samples inside the epoch's
// window, the first of each (GPU, timestamp) only, so a restart that
// re-logged a tick cannot spoil the proof. The window is the lease's as it
// stands: once an early end cuts the lease, the cut epoch's samples after
// the cut are left out. This is the one rule for both the proof and the
// samples served to the renter, so the renter's check finds the proof's
// samples root. ok is false past the lease's last epoch.
func EpochSamples(l Lease, k uint64, samples []settlementtypes.Sample) (kept []settlementtypes.Sample, ok bool) {
	from, to, ok := l.Window(k)
	if !ok {
		return nil, false
	}
	type key struct {
		gpu string
		ms  int64
	}
	seen := map[key]bool{}
	for _, s := range samples {
		k := key{s.GpuUuid, s.TimestampMs}
		t := time.UnixMilli(s.TimestampMs)
		if seen[k] || !slices.Contains(l.GPUs, s.GpuUuid) || t.Before(from) || t.After(to) {
			continue
		}
		seen[k] = true
		kept = append(kept, s)
	}
	settlementtypes.SortSamples(kept)
	return kept, true
}

// Build makes epoch k's proof from the samples collected for it, of which it
// keeps EpochSamples. It returns the proof and the samples in canonical
// order (the tree's leaves, kept to serve Merkle paths to the renter).
func Build(l Lease, k uint64, samples []settlementtypes.Sample, challenge Header, agentVersion string) (settlementtypes.ExecutionProof, []settlementtypes.Sample, error) {
	kept, ok := EpochSamples(l, k, samples)
	if !ok {
		return settlementtypes.ExecutionProof{}, nil, fmt.Errorf("lease %d has no epoch %d", l.ID, k)
	}
	from, to, _ := l.Window(k)
	if challenge.Time.Before(from) || challenge.Time.After(to) {
		return settlementtypes.ExecutionProof{}, nil, fmt.Errorf("%w: block %d at %s, window [%s, %s]", ErrNoChallenge, challenge.Height, challenge.Time, from, to)
	}
	return settlementtypes.BuildProof(settlementtypes.ProofInput{
		LeaseID: l.ID, Epoch: k, WindowStart: from, WindowEnd: to, ChallengeHeight: challenge.Height,
		ChallengeHash: challenge.Hash, GPUs: l.GPUs, Samples: kept, ImageDigest: l.ImageDigest, AgentVersion: agentVersion,
	})
}

// Path returns the Merkle audit path of the i-th sample of an epoch's
// canonical samples (what the renter checks, or reports as fraud).
func Path(sorted []settlementtypes.Sample, i int) ([][]byte, error) {
	leaves, err := settlementtypes.SampleLeaves(sorted)
	if err != nil {
		return nil, err
	}
	return settlementtypes.MerklePath(leaves, i)
}
