package main

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"
)

// soakMarkdown reports a soak: one row a window, then the drift of each
// figure from the first window to the last.
func (r *report) soakMarkdown() string {
	s := r.soak
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	w("### Soak, %s", r.started.UTC().Format("2006-01-02 15:04 MST"))
	w("")
	w("Machine: %s. Commit %s, %s. The sender and the node share the machine.", machine(), commit(), runtime.Version())
	w("Command: `make soak` (`go run ./scripts/loadbench -soak %s -soak-window %s -soak-bids %g -soak-epoch %s -validators %d`), %s in all with the setup.",
		r.opts.soak, s.window, s.bidRate, r.opts.soakEpoch, r.opts.validators, r.finished.Sub(r.started).Round(time.Second))
	w("Load: %d ACTIVE 1-GPU leases with %d s epochs proven as they end (up to %.1f txs/s of %d proofs, to drain the setup's backlog) and %g signed bids/s, sent to the first of %d validator(s); 15 min of proof grace.",
		numProviders*leaseGPUs, s.epochSec, s.proofTxs, proofsPerTx, s.bidRate, r.opts.validators)
	if r.opts.validators > 1 {
		w("RSS, data and goroutines are each validator's, the first (the one the sender talks to) first.")
	}
	if lim := os.Getenv("GOMEMLIMIT"); lim != "" {
		w("Every node ran with GOMEMLIMIT=%s.", lim)
	}
	w("")
	w("| at | committed tx/s | units/s | tx p95 | refused | failed | lost | RSS MiB | data MiB | goroutines | blocks | interval p50 | p99 | backlog | waiting |")
	w("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, x := range s.samples {
		st := x.Step
		w("| %s | %.1f | %.0f | %s | %d | %d | %d | %s | %s | %s | %d | %s | %s | %d | %d |",
			x.At.Round(time.Second), st.TxPerSec, st.UnitsPerSec, ms(st.P95), st.Txs-st.Accepted, st.Failed, st.Lost,
			each(x.RSSMiB), each(x.DiskMiB), each(x.Goroutines), x.Blocks, ms(x.P50), ms(x.P99), x.Backlog, x.Waiting)
	}
	if len(s.samples) < 2 {
		return b.String()
	}
	first, last := s.samples[0], s.samples[len(s.samples)-1]
	hours := (last.At - first.At).Hours()
	w("")
	growth := make([]float64, len(last.DiskMiB))
	for i := range growth {
		growth[i] = (last.DiskMiB[i] - first.DiskMiB[i]) / hours
	}
	w("From the first window to the last (%s): RSS %s → %s MiB, goroutines %s → %s, data %s → %s MiB (%s MiB an hour), block interval p99 %s → %s.",
		(last.At - first.At).Round(time.Second), each(first.RSSMiB), each(last.RSSMiB), each(first.Goroutines), each(last.Goroutines),
		each(first.DiskMiB), each(last.DiskMiB), each(growth), ms(first.P99), ms(last.P99))
	w("Epochs the chain recorded over the %d leases: %d missed, %d excused (a window without a block: no proof could exist); leases waiting for such an excuse at the end: %d.", s.leases, s.missed, s.excused, last.Waiting)
	return b.String()
}
