package proof

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	settlementtypes "github.com/idlegpu/idlegpu/x/settlement/types"
)

// BenchmarkBuild measures what the agent does at each epoch end for an
// 8-GPU lease sampled every 5 s over a 600 s epoch (8 × 120 samples):
// filter, canonical sort, leaf hashes, Merkle root, summaries. It reports
// the proof's size on the wire.
func BenchmarkBuild(b *testing.B) {
	l := Lease{ID: 1, Start: start, DurationSeconds: 600, EpochSeconds: 600, ImageDigest: "sha256:" + string(bytes.Repeat([]byte("ab"), 32))}
	for i := range 8 {
		l.GPUs = append(l.GPUs, fmt.Sprintf("GPU-%08x-1111-2222-3333-444455556666", i))
	}
	from, to, _ := l.Window(0)
	var samples []settlementtypes.Sample
	for g, u := range l.GPUs {
		for i, t := 0, from; t.Before(to); i, t = i+1, t.Add(5*time.Second) {
			samples = append(samples, settlementtypes.Sample{GpuUuid: u, TimestampMs: t.UnixMilli(), UtilBps: 9500 + uint32(g),
				MemUsedMib: 70_000, EnergyMj: 1_000_000 + uint64(i)*3_000_000, PowerMw: 600_000, TempC: 70, SmClockMhz: 1980, Procs: 1})
		}
	}
	h := Header{Height: 9, Hash: bytes.Repeat([]byte{1}, 32), Time: from.Add(time.Second)}
	var p settlementtypes.ExecutionProof
	for b.Loop() {
		var err error
		if p, _, err = Build(l, 0, samples, h, "bench"); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(p.Size()), "bytes/proof")
	b.ReportMetric(float64(len(samples)), "samples/proof")
}
