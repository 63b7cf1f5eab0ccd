package types

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	errorsmod "cosmossdk.io/errors"
)

// SortSamples puts samples in canonical tree order: by timestamp, then GPU
// UUID. The agent sorts before building the tree; a renter checking paths
// and the chain judging fraud reports rely on the same order.
func SortSamples(samples []Sample) {
	slices.SortFunc(samples, compareSamples)
}

func compareSamples(a, b Sample) int {
	if c := cmp.Compare(a.TimestampMs, b.TimestampMs); c != 0 {
		return c
	}
	return cmp.Compare(a.GpuUuid, b.GpuUuid)
}

// SampleLeaves returns the leaf hashes of samples, which must be in
// canonical order with no GPU sampled twice at one instant.
func SampleLeaves(samples []Sample) ([][]byte, error) {
	leaves := make([][]byte, len(samples))
	for i, s := range samples {
		if i > 0 && compareSamples(samples[i-1], s) >= 0 {
			return nil, errorsmod.Wrapf(ErrInvalidSample, "sample %d (%s@%d) out of order or repeated", i, s.GpuUuid, s.TimestampMs)
		}
		h, err := s.LeafHash()
		if err != nil {
			return nil, errorsmod.Wrapf(err, "sample %d", i)
		}
		leaves[i] = h
	}
	return leaves, nil
}

// Summarize condenses an epoch's samples into one summary per GPU of uuids,
// in that order. Every sample must be of one of the GPUs and inside
// [start, end]; every GPU needs at least one sample. Averages round down;
// energy is the counter's rise between the GPU's first and last sample (a
// counter that goes back, as after a driver reload, is an error: that epoch
// cannot be proven from these samples).
func Summarize(samples []Sample, uuids []string, start, end time.Time) ([]GPUSummary, error) {
	type acc struct {
		sum         GPUSummary
		util, power uint64
		clock       uint64
		first, last Sample
		seen        bool
	}
	accs := make([]acc, len(uuids))
	lo, hi := start.UnixMilli(), end.UnixMilli()
	for _, s := range samples {
		if err := s.Validate(); err != nil {
			return nil, err
		}
		i := slices.Index(uuids, s.GpuUuid)
		if i < 0 {
			return nil, errorsmod.Wrapf(ErrInvalidSample, "%s is not one of the lease's GPUs", s.GpuUuid)
		}
		if s.TimestampMs < lo || s.TimestampMs > hi {
			return nil, errorsmod.Wrapf(ErrInvalidSample, "%s sampled at %d, outside [%d, %d]", s.GpuUuid, s.TimestampMs, lo, hi)
		}
		a := &accs[i]
		if !a.seen {
			a.sum = GPUSummary{Uuid: s.GpuUuid, UtilMinBps: s.UtilBps, ProcsMin: s.Procs}
			a.first, a.last, a.seen = s, s, true
		}
		a.sum.Samples++
		a.util += uint64(s.UtilBps)
		a.power += uint64(s.PowerMw)
		a.clock += uint64(s.SmClockMhz)
		a.sum.UtilMinBps = min(a.sum.UtilMinBps, s.UtilBps)
		a.sum.ProcsMin = min(a.sum.ProcsMin, s.Procs)
		a.sum.MemUsedMaxMib = max(a.sum.MemUsedMaxMib, s.MemUsedMib)
		a.sum.TempMaxC = max(a.sum.TempMaxC, s.TempC)
		a.sum.XidErrors += s.XidErrors
		if s.TimestampMs < a.first.TimestampMs {
			a.first = s
		}
		if s.TimestampMs >= a.last.TimestampMs {
			a.last = s
		}
	}
	out := make([]GPUSummary, len(uuids))
	for i, a := range accs {
		if !a.seen {
			return nil, errorsmod.Wrapf(ErrTooFewSamples, "no sample of %s", uuids[i])
		}
		if a.last.EnergyMj < a.first.EnergyMj {
			return nil, errorsmod.Wrapf(ErrInvalidSample, "%s energy counter went back from %d to %d mJ", uuids[i], a.first.EnergyMj, a.last.EnergyMj)
		}
		n := uint64(a.sum.Samples)
		a.sum.UtilAvgBps = uint32(a.util / n)
		a.sum.PowerAvgMw = uint32(a.power / n)
		a.sum.SmClockAvgMhz = uint32(a.clock / n)
		a.sum.EnergyMj = a.last.EnergyMj - a.first.EnergyMj
		out[i] = a.sum
	}
	return out, nil
}

// Contradiction explains how a sample committed under p's samples_root
// contradicts p's summaries, or returns "" when it is consistent: a GPU not
// in the proof, a time outside the window, or a utilisation, process
// count, memory or temperature beyond the GPU's stated bounds.
func (p ExecutionProof) Contradiction(s Sample) string {
	if ms := s.TimestampMs; ms < p.WindowStart.UnixMilli() || ms > p.WindowEnd.UnixMilli() {
		return fmt.Sprintf("sample at %d lies outside the window [%d, %d]", ms, p.WindowStart.UnixMilli(), p.WindowEnd.UnixMilli())
	}
	i := slices.IndexFunc(p.Gpus, func(g GPUSummary) bool { return g.Uuid == s.GpuUuid })
	if i < 0 {
		return fmt.Sprintf("%s is not a GPU of the proof", s.GpuUuid)
	}
	g := p.Gpus[i]
	switch {
	case s.Procs < g.ProcsMin:
		return fmt.Sprintf("%s ran %d job processes, the proof claims at least %d", s.GpuUuid, s.Procs, g.ProcsMin)
	case s.UtilBps < g.UtilMinBps:
		return fmt.Sprintf("%s was at %d bps utilisation, the proof claims at least %d", s.GpuUuid, s.UtilBps, g.UtilMinBps)
	case s.MemUsedMib > g.MemUsedMaxMib:
		return fmt.Sprintf("%s used %d MiB, the proof claims at most %d", s.GpuUuid, s.MemUsedMib, g.MemUsedMaxMib)
	case s.TempC > g.TempMaxC:
		return fmt.Sprintf("%s was at %d °C, the proof claims at most %d", s.GpuUuid, s.TempC, g.TempMaxC)
	}
	return ""
}

// SampleCount is the number of samples (tree leaves) the proof commits to.
func (p ExecutionProof) SampleCount() uint64 {
	var n uint64
	for _, g := range p.Gpus {
		n += uint64(g.Samples)
	}
	return n
}
