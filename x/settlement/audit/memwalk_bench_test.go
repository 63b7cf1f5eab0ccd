package audit

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"
)

// BenchmarkCheckSegment is the chain's cost of one sampled leaf of an H100
// audit: SegmentSteps item derivations from the cache (docs/benchmarks.md).
func BenchmarkCheckSegment(b *testing.B) {
	h100, err := ShapeFor(81559)
	if err != nil {
		b.Fatal(err)
	}
	c, err := NewCache(seed(1))
	if err != nil {
		b.Fatal(err)
	}
	o := Opening{Index: 1}
	b.ResetTimer()
	for b.Loop() {
		if _, err := CheckSegment(c, seed(1), h100, o); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(h100.SegmentSteps), "ns/step")
}

// BenchmarkNewCache is the chain's fixed cost per verified audit.
func BenchmarkNewCache(b *testing.B) {
	for b.Loop() {
		if _, err := NewCache(seed(1)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCPUReference measures what a CPU does with the workload: how
// fast it builds table items and how fast its walk reads a table held in
// RAM, on all its cores, for a table of IDLEGPU_AUDIT_BENCH_MIB MiB
// (default 1024). docs/design.md#audits extrapolates a board-sized audit
// from these rates; run it as
//
//	IDLEGPU_AUDIT_BENCH_MIB=8192 go test ./x/settlement/audit -run '^$' -bench CPUReference -benchtime 1x
func BenchmarkCPUReference(b *testing.B) {
	mib := uint64(1024)
	if v := os.Getenv("IDLEGPU_AUDIT_BENCH_MIB"); v != "" {
		var err error
		if mib, err = strconv.ParseUint(v, 10, 64); err != nil {
			b.Fatal(err)
		}
	}
	s, err := ShapeFor(mib)
	if err != nil {
		b.Fatal(err)
	}
	// A shorter walk than the board's: the rate is what is measured.
	s.SegmentSteps = max(1, s.SegmentSteps/16)
	for b.Loop() {
		c, err := NewCache(seed(9))
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		t := newTableParallel(c, s.TableItems)
		build := time.Since(start)
		start = time.Now()
		if _, err := runWalk(context.Background(), seed(9), s, t); err != nil {
			b.Fatal(err)
		}
		walk := time.Since(start)
		b.ReportMetric(float64(s.TableItems)/build.Seconds(), "items/s")
		b.ReportMetric(float64(s.Reads())/walk.Seconds(), "reads/s")
	}
}
