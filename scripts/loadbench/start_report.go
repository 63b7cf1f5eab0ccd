package main

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// loaded are the probes whose way to running the bid load shared: their
// blocks carried at least half the offered rate.
func (s *startResult) loaded() []StartProbe {
	var out []StartProbe
	for _, p := range s.probes {
		if p.Load >= s.bidRate/2 {
			out = append(out, p)
		}
	}
	return out
}

// running is the loaded probes' post → running seconds, sorted.
func (s *startResult) running() []float64 {
	var out []float64
	for _, p := range s.loaded() {
		out = append(out, p.Running)
	}
	slices.Sort(out)
	return out
}

// summary is the start sweep in one line: how many jobs, the spread, the
// failures.
func (s *startResult) summary() string {
	run := s.running()
	if len(run) == 0 {
		return fmt.Sprintf("no job started under load; %d failed", len(s.failures))
	}
	return fmt.Sprintf("%d jobs under load: p50 %.2f s, p95 %.2f s, max %.2f s; %d failed", len(run),
		percentile(run, 0.5), percentile(run, 0.95), run[len(run)-1], len(s.failures))
}

// startMarkdown reports the start sweep: where the time from post to
// running goes, and the load beside it.
func (r *report) startMarkdown(b *strings.Builder) {
	s := r.start
	w := func(format string, args ...any) { fmt.Fprintf(b, format+"\n", args...) }
	w("**Post → job running with real agents** (%d `idlegpu-agent`s, %d simulated GPUs, the process runner; a 1-GPU %d s job posted every %s while %g signed bids/s load the node; a chain of its own with 20 s epochs):",
		s.agents, s.gpus, startLeaseSeconds, s.every, r.opts.startBids)
	w("")
	var leased, started []float64
	for _, p := range s.loaded() {
		leased = append(leased, p.Leased)
		started = append(started, p.Running-p.Leased)
	}
	slices.Sort(leased)
	slices.Sort(started)
	run := s.running()
	w("Of %d jobs started, %d were posted and started while the blocks carried at least half the offered bid rate (%g tx/s); the figures are theirs.", len(s.probes), len(s.loaded()), s.bidRate/2)
	w("")
	w("| seconds from the post's broadcast | p50 | p95 | p99 | max |")
	w("|---|---:|---:|---:|---:|")
	row := func(name string, xs []float64) {
		if len(xs) == 0 {
			w("| %s | – | – | – | – |", name)
			return
		}
		w("| %s | %.2f | %.2f | %.2f | %.2f |", name, percentile(xs, 0.5), percentile(xs, 0.95), percentile(xs, 0.99), xs[len(xs)-1])
	}
	row("lease committed (the post cleared)", leased)
	row("then: manifest sent, job started, MsgStartLease committed", started)
	row("**job running** (lease ACTIVE in a committed block)", run)
	w("")
	var rate float64
	var bids int
	for _, x := range s.bids {
		rate += x.TxPerSec
		bids += x.Committed
	}
	if n := float64(len(s.bids)); n > 0 {
		// Each step signs its txs before it starts and drains after: the
		// wall-clock rate counts those pauses.
		w("%d jobs started, %d failed. The bid load: %d steps of %s committing %.0f tx/s on average while they ran, %.0f tx/s over the whole %s.",
			len(s.probes), len(s.failures), len(s.bids), r.opts.step, rate/n, float64(bids)/s.loadWall.Seconds(), s.loadWall.Round(time.Second))
	}
	for i, f := range s.failures {
		if i == 5 {
			w("- … %d more", len(s.failures)-5)
			break
		}
		w("- %s", f)
	}
	w("")
}
