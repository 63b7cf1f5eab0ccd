package types

import (
	"math/bits"
	"time"

	"github.com/idlegpu/idlegpu/x/internal/check"
)

// NewLeaseProgress starts a lease's settlement record with the params that
// judge its proofs and misses snapshotted (x/settlement/README.md, "Params"):
// a governance change later never strands a live lease. models are the
// lease's GPU models; their plausibility entries are kept.
func NewLeaseProgress(leaseID uint64, start time.Time, durationSeconds uint64, models []string, p Params) LeaseProgress {
	prog := LeaseProgress{
		LeaseId: leaseID, Start: start, EpochSeconds: p.EpochSeconds, DurationSeconds: durationSeconds,
		SampleIntervalSeconds: p.SampleIntervalSeconds, MinSamplesRatioBps: p.MinSamplesRatioBps,
		ProofGraceSeconds: p.ProofGraceSeconds, MaxMissedEpochs: p.MaxMissedEpochs,
		MissWindowEpochs: p.MissWindowEpochs,
	}
	for _, m := range p.GpuModels { // sorted and unique, so the snapshot is too
		for _, want := range models {
			if m.Model == want {
				prog.GpuModels = append(prog.GpuModels, m)
				break
			}
		}
	}
	return prog
}

// FillUnset gives a record written before the snapshot existed the current
// params (zero values are never valid snapshots).
func (lp *LeaseProgress) FillUnset(p Params, leaseDuration uint64) {
	if lp.EpochSeconds == 0 {
		lp.EpochSeconds = p.EpochSeconds
	}
	if lp.DurationSeconds == 0 {
		lp.DurationSeconds = leaseDuration
	}
	if lp.SampleIntervalSeconds == 0 {
		lp.SampleIntervalSeconds = p.SampleIntervalSeconds
		lp.MinSamplesRatioBps = p.MinSamplesRatioBps
		lp.ProofGraceSeconds = p.ProofGraceSeconds
		lp.MaxMissedEpochs = p.MaxMissedEpochs
		lp.GpuModels = p.GpuModels
	}
	if lp.MissWindowEpochs == 0 {
		lp.MissWindowEpochs = max(p.MissWindowEpochs, lp.MaxMissedEpochs)
	}
}

// Epochs is how many epochs the lease has: ceil(duration / epoch).
func (lp LeaseProgress) Epochs() uint64 { return EpochCount(lp.DurationSeconds, lp.EpochSeconds) }

// Window is epoch k's [from, to] for a lease started at start; ok is false
// past the last epoch.
func (lp LeaseProgress) Window(start time.Time, k uint64) (from, to time.Time, ok bool) {
	return EpochWindow(start, lp.DurationSeconds, lp.EpochSeconds, k)
}

// Grace is how long after a window ends its proof may land.
func (lp LeaseProgress) Grace() time.Duration { return check.Duration(lp.ProofGraceSeconds) }

// SampleInterval is the lease's sampling interval.
func (lp LeaseProgress) SampleInterval() time.Duration {
	return check.Duration(lp.SampleIntervalSeconds)
}

// MinSamples is the samples a GPU needs in a window of this lease.
func (lp LeaseProgress) MinSamples(window time.Duration) uint64 {
	return minSamples(window, lp.SampleInterval(), lp.MinSamplesRatioBps)
}

// GPUModel is the lease's snapshot of a model's plausibility figures.
func (lp LeaseProgress) GPUModel(model string) (GPUModel, bool) {
	for _, m := range lp.GpuModels {
		if m.Model == model {
			return m, true
		}
	}
	return GPUModel{}, false
}

// Provable reports whether a window can carry a proof at all: it must hold
// one sample interval (a shorter one, the tail of a lease ended early, may
// hold no sample; it is excused).
func (lp LeaseProgress) Provable(from, to time.Time) bool {
	return to.Sub(from) >= lp.SampleInterval()
}

// Settled records one more settled epoch of the lease in its miss window
// (newest in bit 0): missed or not (proven or excused). A proof resets the
// row; an excuse neither resets it nor adds to it.
func (lp *LeaseProgress) Settled(missed, excused bool) {
	lp.RecentMisses <<= 1
	switch {
	case missed:
		lp.RecentMisses |= 1
		lp.MissedInRow++
	case !excused:
		lp.MissedInRow = 0
	}
}

// MissesInWindow counts the misses among the lease's last
// miss_window_epochs settled epochs.
func (lp LeaseProgress) MissesInWindow() uint32 {
	window := min(uint(lp.MissWindowEpochs), 64)
	mask := uint64(1)<<window - 1
	if window == 64 {
		mask = ^uint64(0)
	}
	return uint32(bits.OnesCount64(lp.RecentMisses & mask))
}

// MissesFail reports whether the lease's misses fail it (docs/design.md#failure-costs-and-fees):
// max_missed_epochs among its last miss_window_epochs settled epochs, in a
// row or not.
func (lp LeaseProgress) MissesFail() bool {
	return lp.MissesInWindow() >= lp.MaxMissedEpochs
}

// Completion reports whether a lease that ran its term counts as a
// completion in its provider's record: no epoch missed and at least one
// proven. An excused epoch never turns a lease with misses into one.
func (lp LeaseProgress) Completion() bool {
	return lp.MissedEpochs == 0 && lp.ProvenEpochs > 0
}
