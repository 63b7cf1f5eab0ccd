package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	rpchttp "github.com/cometbft/cometbft/rpc/client/http"

	settlementtypes "github.com/idlegpu/idlegpu/x/settlement/types"
)

// A soak holds a steady mixed load on the node for a long time and samples
// it each window: does memory, the goroutine count or commit latency
// drift, how fast does the disk grow, and do the leases' proofs keep up
// (a lease whose epoch had no block inside its window falls out: a missed
// epoch). Proofs are offered at the rate the leases produce ended epochs;
// signed bids at a fixed rate on top.

type soakSample struct {
	At   time.Duration // since the soak began, at the window's end
	Step StepResult    // the window's txs: proofs then bids, per provider
	// Per validator, the first (the one the sender talks to) first.
	RSSMiB, DiskMiB []float64
	Goroutines      []int
	P50, P99        time.Duration // block intervals in the window
	Blocks          int
	// Backlog is the ended epochs not yet sent when the window's txs were
	// signed (while the window before was sent), so a steady backlog is
	// about two windows of epochs.
	// Waiting counts the leases whose next epoch had no block in its
	// window, until the chain excuses it at its due time.
	Backlog, Waiting int
}

type soakResult struct {
	window            time.Duration
	epochSec          uint64
	bidRate, proofTxs float64
	samples           []soakSample
	missed, excused   uint64 // epochs the chain recorded on the leases as missed, as excused
	leases            int
}

// mixSource offers each provider's proofs, then its bids, in one lane (one
// account: its sequences must follow the lane's order).
type mixSource struct {
	proofs  *proofSource
	bids    *bidSource
	proofTx float64 // proof txs per bid tx in a step
}

func (s *mixSource) Step(ctx context.Context, n int) ([][]Tx, error) {
	nProofs := int(float64(n) * s.proofTx / (1 + s.proofTx))
	p, err := s.proofs.Step(ctx, nProofs)
	if err != nil {
		return nil, err
	}
	b, err := s.bids.Step(ctx, n-nProofs)
	if err != nil {
		return nil, err
	}

	for i := range b {
		p[i] = append(p[i], b[i]...)
	}
	return p, nil
}

func (s *mixSource) After(ctx context.Context, r StepResult) error {
	if r.Accepted == r.Txs && r.Failed == 0 && r.Lost == 0 {
		return nil
	}
	return s.proofs.m.resync(ctx)
}

// soak runs windows of o.soakWindow until o.soak has passed, back to back:
// each window's txs are signed while the one before is sent, and its
// commits are collected while the next one is sent, so the node sees one
// steady stream. (Signing a window between windows, then draining it, left
// a gap and a burst of CPU on the machine the nodes share once a window:
// that window's one long block was the tool's, not the node's.)
func soak(ctx context.Context, o options, nodes []benchNode, node *rpchttp.HTTP, poller *Poller, m *market) (*soakResult, error) {
	// Every lease ends an epoch each epoch_seconds: offer proofs at half as
	// much again, so the backlog the setup left drains; once it has, the
	// source has only what ended (a step short of proofs is no failure).
	epoch := m.providers[0].leases[0].epochSec
	proofsPerSec := 1.5 * float64(numProviders*leaseGPUs) / float64(epoch)
	res := &soakResult{window: o.soakWindow, epochSec: epoch, bidRate: o.soakBids, proofTxs: proofsPerSec / proofsPerTx}
	src := &mixSource{proofs: &proofSource{m: m}, bids: &bidSource{m: m}, proofTx: res.proofTxs / o.soakBids}
	rate := res.proofTxs + o.soakBids
	n := int(rate * o.soakWindow.Seconds())
	logf("soak: %s in windows of %s: up to %.0f proofs/s (%.1f tx/s) and %.0f bids/s", o.soak, o.soakWindow, proofsPerSec, res.proofTxs, o.soakBids)

	// Only the preparing goroutine touches m: it resyncs after a failed
	// window, signs the next one and reads the backlog.
	type prepared struct {
		lanes            [][]Tx
		backlog, waiting int
		err              error
	}
	prepare := func(failed *StepResult) <-chan prepared {
		ch := make(chan prepared, 1)
		go func() {
			var p prepared
			if failed != nil {
				if p.err = src.After(ctx, *failed); p.err != nil {
					ch <- p
					return
				}
			}
			p.lanes, p.err = src.Step(ctx, n)
			p.backlog = m.backlog()
			for _, pr := range m.providers {
				for _, l := range pr.leases {
					if l.waiting {
						p.waiting++
					}
				}
			}
			ch <- p
		}()
		return ch
	}
	type collected struct {
		r   StepResult
		err error
	}
	var (
		next      = prepare(nil)
		failed    *StepResult      // a collected window that failed, for the next prepare to resync after
		pending   <-chan collected // the previous window's commits
		pendingAt soakSample
	)
	finish := func() error { // records the previous window once its commits are in
		if pending == nil {
			return nil
		}
		c := <-pending
		pending = nil
		if c.err != nil {
			return c.err
		}
		s := pendingAt
		s.Step = c.r
		res.samples = append(res.samples, s)
		logf("soak %s: committed %.1f tx/s (%.0f units/s), p95 %v; RSS %s MiB, data %s MiB, %s goroutines; blocks p50 %v p99 %v; backlog %d, waiting %d",
			s.At.Round(time.Second), c.r.TxPerSec, c.r.UnitsPerSec, c.r.P95.Round(time.Millisecond), each(s.RSSMiB), each(s.DiskMiB), each(s.Goroutines),
			s.P50.Round(time.Millisecond), s.P99.Round(time.Millisecond), s.Backlog, s.Waiting)
		if c.r.FirstFail != "" {
			logf("soak %s: first failed tx: %s", s.At.Round(time.Second), c.r.FirstFail)
		}
		if c.r.Accepted != c.r.Txs || c.r.Failed > 0 || c.r.Lost > 0 {
			failed = &c.r
		}
		return nil
	}
	start := time.Now()
	for time.Since(start) < o.soak {
		p := <-next
		if p.err != nil {
			return res, fmt.Errorf("soak at %s: %w", time.Since(start).Round(time.Second), p.err)
		}
		next = prepare(failed)
		failed = nil
		from := time.Now()
		r, sent := sendStep(ctx, node, poller, p.lanes, n, rate)
		s := soakSample{At: time.Since(start), Backlog: p.backlog, Waiting: p.waiting}
		for _, nd := range nodes {
			rss, err := rssMiB(nd.pid)
			if err != nil {
				return res, err
			}
			disk, err := dirMiB(filepath.Join(nd.home, "data"))
			if err != nil {
				return res, err
			}
			g, err := goroutines(ctx, nd.pprof)
			if err != nil {
				return res, err
			}
			s.RSSMiB, s.DiskMiB, s.Goroutines = append(s.RSSMiB, rss), append(s.DiskMiB, disk), append(s.Goroutines, g)
		}
		s.P50, s.P99, s.Blocks = blockIntervals(poller.Blocks(), from)
		if err := finish(); err != nil {
			return res, err
		}
		ch := make(chan collected, 1)
		go func() {
			c, err := collectStep(ctx, poller, r, sent, o.soakWindow)
			ch <- collected{c, err}
		}()
		pending, pendingAt = ch, s
	}
	if err := finish(); err != nil {
		return res, err
	}
	if p := <-next; p.err != nil { // m is quiet from here
		return res, p.err
	}
	sq := settlementtypes.NewQueryClient(m.c.q)
	for _, p := range m.providers {
		for _, l := range p.leases {
			pr, err := sq.LeaseProgress(ctx, &settlementtypes.QueryLeaseProgressRequest{LeaseId: l.id})
			if err != nil {
				return res, fmt.Errorf("lease %d progress: %w", l.id, err)
			}
			res.missed += pr.Progress.MissedEpochs
			res.excused += pr.Progress.ExcusedEpochs
			res.leases++
		}
	}
	return res, nil
}

// each formats one figure per validator: "933" or "933 · 901 · 899 · 905".
func each[N int | float64](xs []N) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.FormatFloat(float64(x), 'f', 0, 64)
	}
	return strings.Join(parts, " · ")
}

// rssMiB is a process's resident memory (/proc/<pid>/status VmRSS).
func rssMiB(pid int) (float64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			return kb / 1024, err
		}
	}
	return 0, fmt.Errorf("no VmRSS for pid %d", pid)
}

// dirMiB is the size of the files under dir.
func dirMiB(dir string) (float64, error) {
	var n int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			info, err := d.Info()
			if err != nil {
				return err
			}
			n += info.Size()
		}
		return nil
	})
	return float64(n) / (1 << 20), err
}

// goroutines reads the node's goroutine count from its pprof endpoint.
func goroutines(ctx context.Context, addr string) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/debug/pprof/goroutine?debug=1", nil)
	if err != nil {
		return 0, err
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	line, err := bufio.NewReader(io.LimitReader(res.Body, 4096)).ReadString('\n')
	if err != nil {
		return 0, err
	}
	// "goroutine profile: total 123"
	_, total, ok := strings.Cut(strings.TrimSpace(line), "total ")
	if !ok {
		return 0, fmt.Errorf("pprof goroutine: unexpected %q", line)
	}
	return strconv.Atoi(total)
}

// blockIntervals are the p50 and p99 of the commit intervals (as the
// observer saw them) of the blocks seen since from.
func blockIntervals(bs []Block, from time.Time) (p50, p99 time.Duration, n int) {
	var ds []time.Duration
	for i := 1; i < len(bs); i++ {
		if bs[i].Observed.After(from) {
			ds = append(ds, bs[i].Observed.Sub(bs[i-1].Observed))
		}
	}
	if len(ds) == 0 {
		return 0, 0, 0
	}
	slices.Sort(ds)
	return ds[len(ds)/2], ds[min(len(ds)-1, len(ds)*99/100)], len(ds)
}
