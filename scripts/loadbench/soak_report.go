package main

import (
	"fmt"
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
	w("Command: `make soak` (`go run ./scripts/loadbench -soak %s -soak-window %s -soak-bids %g`), %s in all with the setup.",
		r.opts.soak, s.window, s.bidRate, r.finished.Sub(r.started).Round(time.Second))
	w("Load: %d ACTIVE 1-GPU leases with %d s epochs proven as they end (up to %.1f txs/s of %d proofs, to drain the setup's backlog) and %g signed bids/s, one node; 15 min of proof grace.",
		numProviders*leaseGPUs, s.epochSec, s.proofTxs, proofsPerTx, s.bidRate)
	w("")
	w("| at | committed tx/s | units/s | tx p95 | refused | failed | lost | RSS MiB | data MiB | goroutines | blocks | interval p50 | p99 | backlog | stuck |")
	w("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, x := range s.samples {
		st := x.Step
		w("| %s | %.1f | %.0f | %s | %d | %d | %d | %.0f | %.0f | %d | %d | %s | %s | %d | %d |",
			x.At.Round(time.Second), st.TxPerSec, st.UnitsPerSec, ms(st.P95), st.Txs-st.Accepted, st.Failed, st.Lost,
			x.RSSMiB, x.DiskMiB, x.Goroutines, x.Blocks, ms(x.P50), ms(x.P99), x.Backlog, x.Stuck)
	}
	if len(s.samples) < 2 {
		return b.String()
	}
	first, last := s.samples[0], s.samples[len(s.samples)-1]
	hours := (last.At - first.At).Hours()
	w("")
	w("From the first window to the last (%s): RSS %.0f → %.0f MiB, goroutines %d → %d, data %.0f → %.0f MiB (%.0f MiB an hour), block interval p99 %s → %s.",
		(last.At - first.At).Round(time.Second), first.RSSMiB, last.RSSMiB, first.Goroutines, last.Goroutines,
		first.DiskMiB, last.DiskMiB, (last.DiskMiB-first.DiskMiB)/hours, ms(first.P99), ms(last.P99))
	w("Missed epochs recorded on chain over the %d leases: %d; leases that fell out (an epoch with no block in its window): %d.", s.leases, s.missed, last.Stuck)
	return b.String()
}
