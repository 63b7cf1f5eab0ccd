package main

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	rpchttp "github.com/cometbft/cometbft/rpc/client/http"
)

// Tx is a signed transaction and the work it carries (proofs; 1 for a bid
// or a kvstore write).
type Tx struct {
	Bytes []byte
	Units int
}

// Source makes the transactions of each step.
type Source interface {
	// Step returns about n txs in lanes: a lane is sent in order by one
	// sender (its txs share an account's sequence).
	Step(ctx context.Context, n int) ([][]Tx, error)
	// After runs between steps with the step's outcome (to resync
	// sequences and chain state after refusals or failures).
	After(ctx context.Context, r StepResult) error
}

// StepResult is one offered rate's outcome.
type StepResult struct {
	Offered     float64 // tx/s asked of the sender
	Sent        float64 // tx/s it managed to send
	Txs         int     // made by the source
	Accepted    int     // taken into the mempool
	Committed   int     // in a block, successful
	Failed      int     // in a block, failed
	Lost        int     // accepted but not in a block before the drain deadline
	Units       int     // units (proofs) in successful txs
	TxPerSec    float64 // successful txs per second of the blocks that carried them
	UnitsPerSec float64
	P50, P95    time.Duration // broadcast → seen in a committed block
	Refusals    map[string]int
	FirstFail   string
	Short       bool          // the source had fewer txs than asked
	Elapsed     time.Duration // the span of the blocks that carried the step
}

// Saturated: the node no longer keeps up with the offered rate.
func (r StepResult) Saturated() bool {
	refused := r.Txs - r.Accepted
	return r.TxPerSec < 0.8*r.Offered || r.P95 > 10*time.Second || refused*20 > r.Txs || r.Lost > 0
}

type sentTx struct {
	at    time.Time
	units int
	out   <-chan outcome
}

// runStep offers txs at rate for d: tx i of the step (lanes interleaved)
// is sent at start + i/rate, each lane by its own goroutine, with
// broadcast_tx_sync (the mempool's answer comes back). It then waits for
// every accepted tx to be committed, and for the mempool to empty.
func runStep(ctx context.Context, node *rpchttp.HTTP, poller *Poller, src Source, rate float64, d time.Duration) (StepResult, error) {
	n := int(rate * d.Seconds())
	lanes, err := src.Step(ctx, n)
	if err != nil {
		return StepResult{}, err
	}
	res, sent := sendStep(ctx, node, poller, lanes, n, rate)
	if res, err = collectStep(ctx, poller, res, sent, d); err != nil {
		return res, err
	}
	// The next step starts on an empty mempool.
	for t := time.Now(); time.Since(t) < time.Minute; time.Sleep(250 * time.Millisecond) {
		u, err := node.NumUnconfirmedTxs(ctx)
		if err == nil && u.Total == 0 {
			break
		}
	}
	return res, src.After(ctx, res)
}

// sendStep sends a step's signed txs on their schedule (n were asked of the
// source) and returns what the mempool took.
func sendStep(ctx context.Context, node *rpchttp.HTTP, poller *Poller, lanes [][]Tx, n int, rate float64) (StepResult, []sentTx) {
	res := StepResult{Offered: rate, Refusals: map[string]int{}}
	// Interleave the lanes into one schedule.
	when := make([][]time.Duration, len(lanes))
	idx := 0
	for k := 0; ; k++ {
		more := false
		for j, lane := range lanes {
			if k < len(lane) {
				when[j] = append(when[j], time.Duration(float64(idx)/rate*float64(time.Second)))
				idx++
				more = true
			}
		}
		if !more {
			break
		}
	}
	res.Txs = idx
	res.Short = idx < n

	start := time.Now().Add(200 * time.Millisecond)
	var mu sync.Mutex
	var sent []sentTx
	var wg sync.WaitGroup
	for j, lane := range lanes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k, tx := range lane {
				if wait := time.Until(start.Add(when[j][k])); wait > 0 {
					time.Sleep(wait)
				}
				out := poller.Track(tx.Bytes)
				at := time.Now()
				r, err := node.BroadcastTxSync(ctx, tx.Bytes)
				reason := ""
				switch {
				case err != nil:
					reason = err.Error()
				case r.Code != 0:
					reason = r.Log
				}
				if reason != "" {
					poller.Forget(tx.Bytes)
					mu.Lock()
					res.Refusals[shorten(reason)]++
					mu.Unlock()
					return // the lane's later txs carry later sequences: they would be refused too
				}
				mu.Lock()
				sent = append(sent, sentTx{at: at, units: tx.Units, out: out})
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	sendEnd := time.Now()
	res.Accepted = len(sent)
	res.Sent = float64(len(sent)) / sendEnd.Sub(start).Seconds()
	return res, sent
}

// collectStep waits (at most d, or 30 s) for a step's accepted txs to be
// committed and reads their results and latencies.
func collectStep(ctx context.Context, poller *Poller, res StepResult, sent []sentTx, d time.Duration) (StepResult, error) {
	deadline := time.NewTimer(max(30*time.Second, d))
	defer deadline.Stop()
	type committed struct {
		sentTx
		o outcome
	}
	var done []committed
wait:
	for _, s := range sent {
		select {
		case o := <-s.out:
			done = append(done, committed{s, o})
		case <-deadline.C:
			break wait
		case <-ctx.Done():
			return res, ctx.Err()
		}
	}
	// Result codes are read now that the step's blocks are all in.
	results := map[int64][]txResult{}
	var lat []time.Duration
	var first, last time.Time
	heights := map[int64]bool{}
	for _, c := range done {
		rs, ok := results[c.o.Height]
		if !ok {
			var err error
			if rs, err = poller.results(ctx, c.o.Height); err != nil {
				return res, err
			}
			results[c.o.Height] = rs
		}
		if c.o.Index >= len(rs) {
			return res, fmt.Errorf("block %d has %d tx results, want index %d", c.o.Height, len(rs), c.o.Index)
		}
		if code, log := rs[c.o.Index].code, rs[c.o.Index].log; code != 0 {
			res.Failed++
			if res.FirstFail == "" {
				res.FirstFail = shorten(log)
			}
			continue
		}
		res.Committed++
		res.Units += c.units
		lat = append(lat, c.o.Observed.Sub(c.at))
		heights[c.o.Height] = true
		if first.IsZero() || c.o.Observed.Before(first) {
			first = c.o.Observed
		}
		if c.o.Observed.After(last) {
			last = c.o.Observed
		}
	}
	res.Lost = res.Accepted - res.Committed - res.Failed
	if res.Committed > 0 {
		// The k blocks that carried the step span k block intervals: from
		// the first one's commit to the last's, plus one interval.
		res.Elapsed = d
		if k := len(heights); k > 1 {
			res.Elapsed = last.Sub(first) * time.Duration(k) / time.Duration(k-1)
		}
		res.TxPerSec = float64(res.Committed) / res.Elapsed.Seconds()
		res.UnitsPerSec = float64(res.Units) / res.Elapsed.Seconds()
		slices.Sort(lat)
		res.P50, res.P95 = lat[len(lat)*50/100], lat[min(len(lat)-1, len(lat)*95/100)]
	}
	return res, nil
}

// sweepCfg is one sweep: a source offered at doubling rates.
type sweepCfg struct {
	name   string
	node   *rpchttp.HTTP
	poller *Poller
	src    Source
	first  float64 // tx/s
	steps  int
	d      time.Duration
	unit   string             // what a tx's units are ("proofs"), if any
	during func(label string) // runs alongside each step (a profile), if set
}

// sweep doubles the offered rate from first until the node saturates (or
// the source runs dry), at most steps times, then offers ¾ of the rate that
// saturated it: the peak lies between the last two doublings.
func sweep(ctx context.Context, c sweepCfg) ([]StepResult, error) {
	var out []StepResult
	step := func(rate float64) (StepResult, error) {
		if c.during != nil {
			go c.during(fmt.Sprintf("%s-%g", c.name, rate))
		}
		r, err := runStep(ctx, c.node, c.poller, c.src, rate, c.d)
		if err != nil {
			return r, fmt.Errorf("%s at %.0f tx/s: %w", c.name, rate, err)
		}
		out = append(out, r)
		logf("%s: offered %6.1f tx/s → committed %7.1f tx/s%s, p50 %v p95 %v (sent %d, refused %d, failed %d, lost %d)%s",
			c.name, r.Offered, r.TxPerSec, unitRate(r, c.unit), r.P50.Round(time.Millisecond), r.P95.Round(time.Millisecond),
			r.Accepted, r.Txs-r.Accepted, r.Failed, r.Lost, refusalNote(r))
		return r, nil
	}
	for i, rate := 0, c.first; i < c.steps; i, rate = i+1, rate*2 {
		r, err := step(rate)
		if err != nil {
			return out, err
		}
		if r.Short {
			break // the source ran dry: no finer step would have the txs either
		}
		if r.Saturated() {
			if i > 0 {
				if _, err := step(rate * 3 / 4); err != nil {
					return out, err
				}
			}
			break
		}
	}
	return out, nil
}

// Peak is the best committed rate of a sweep, among the steps whose load
// the node took in (a step whose txs the mempool mostly refused committed
// a burst, not a rate it sustains).
func Peak(rs []StepResult) StepResult {
	var best StepResult
	for _, r := range rs {
		if refused := r.Txs - r.Accepted; refused*20 <= r.Txs && r.TxPerSec > best.TxPerSec {
			best = r
		}
	}
	return best
}

func unitRate(r StepResult, unit string) string {
	if unit == "" {
		return ""
	}
	return fmt.Sprintf(" = %.0f %s/s", r.UnitsPerSec, unit)
}

func refusalNote(r StepResult) string {
	var parts []string
	for reason, n := range r.Refusals {
		parts = append(parts, fmt.Sprintf("%d× %q", n, reason))
	}
	sort.Strings(parts)
	if r.FirstFail != "" {
		parts = append(parts, "first failure: "+r.FirstFail)
	}
	if len(parts) == 0 {
		return ""
	}
	return " — " + strings.Join(parts, "; ")
}

func shorten(s string) string {
	// CometBFT's RPC errors carry the reason after a long preamble.
	if _, reason, ok := strings.Cut(s, "RPC error "); ok {
		s = "RPC error " + reason
	}
	if len(s) > 160 {
		return s[:160] + "…"
	}
	return s
}

func logf(format string, args ...any) {
	fmt.Printf("[%s] %s\n", time.Now().Format(time.TimeOnly), fmt.Sprintf(format, args...))
}
