package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"time"
)

type report struct {
	opts              options
	started, finished time.Time
	bids, proofs      []StepResult
	kvstore           []StepResult
	probes            []Probe
	bidTxBytes        int
	chainBlocks       []Block
	soak              *soakResult
	start             *startResult
}

func (r *report) markdown() string {
	if r.soak != nil {
		return r.soakMarkdown()
	}
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	w("### Load benchmark, %s", r.started.UTC().Format("2006-01-02 15:04 MST"))
	w("")
	w("Machine: %s. Commit %s, %s. The sender and the node share the machine.", machine(), commit(), runtime.Version())
	w("Command: `make bench` (`go run ./scripts/loadbench -only %s -step %s -steps %d -bids-from %g -proofs-from %g -kvstore-from %g -validators %d -agents %d -start-bids %g -start-for %s -start-every %s`), %s in all.",
		r.opts.only, r.opts.step, r.opts.steps, r.opts.bidsFrom, r.opts.proofsFrom, r.opts.kvFrom, r.opts.validators,
		r.opts.agents, r.opts.startBids, r.opts.startFor, r.opts.startEvery, r.finished.Sub(r.started).Round(time.Second))
	w("Each rate is held %s; a step's committed rate is its successful txs over the span of the blocks that carried them (first to last commit, plus one block interval); latency is broadcast_tx_sync → the block seen committed.", r.opts.step)
	w("")
	w("**Signed `MsgPlaceBid`** (%d provider accounts, %d open jobs, %d-byte txs):", numProviders, numBidJobs, r.bidTxBytes)
	w("")
	table(&b, r.bids, "")
	w("")
	w("**Signed `MsgSubmitProofs`, %d proofs a tx** (%d providers, %d ACTIVE 1-GPU leases, 2 s epochs):", proofsPerTx, numProviders, numProviders*leaseGPUs)
	w("")
	table(&b, r.proofs, "proofs")
	w("")
	w("**CometBFT kvstore** (`cometbft node --proxy_app=kvstore`, same consensus timeouts, same sender, %d-byte txs):", r.bidTxBytes)
	w("")
	table(&b, r.kvstore, "")
	w("")
	if r.start != nil {
		r.startMarkdown(&b)
	}
	bids, proofs, kv := Peak(r.bids), Peak(r.proofs), Peak(r.kvstore)
	ratio := 0.0
	if kv.TxPerSec > 0 {
		ratio = bids.TxPerSec / kv.TxPerSec
	}
	w("| goal | measured | met |")
	w("|---|---|---|")
	w("| bids ≥ 0.6 × kvstore tx/s | %.0f / %.0f tx/s = **%.2f×** | %s |", bids.TxPerSec, kv.TxPerSec, ratio, yes(ratio >= 0.6))
	w("| ≥ 10,000 proofs/s | **%.0f proofs/s** (%.1f tx/s) | %s |", proofs.UnitsPerSec, proofs.TxPerSec, yes(proofs.UnitsPerSec >= 10_000))
	blocks, secs := probeStats(r.probes)
	w("| post → lease ≤ 1 block | %s | %s |", blocks+"; "+secs, yes(len(r.probes) > 0 && maxBlocks(r.probes) <= 1))
	if r.start != nil {
		p99 := percentile(r.start.running(), 0.99)
		w("| post → job running p99 ≤ 5 s, real agents | **%.2f s** (%s) | %s |", p99, r.start.summary(), yes(len(r.start.probes) > 0 && p99 <= 5))
	}
	if len(r.chainBlocks) > 1 {
		w("")
		w("Block interval on the idlegpud node over the run: %s.", intervals(r.chainBlocks))
	}
	return b.String()
}

func table(b *strings.Builder, rs []StepResult, unit string) {
	head := "| offered tx/s | sent tx/s | committed tx/s |"
	line := "|---:|---:|---:|"
	if unit != "" {
		head += " offered " + unit + "/s | committed " + unit + "/s |"
		line += "---:|---:|"
	}
	fmt.Fprintln(b, head+" p50 | p95 | refused | failed | lost |")
	fmt.Fprintln(b, line+"---:|---:|---:|---:|---:|")
	for _, r := range rs {
		row := fmt.Sprintf("| %.1f | %.1f | %.1f |", r.Offered, r.Sent, r.TxPerSec)
		if unit != "" {
			row += fmt.Sprintf(" %.0f | %.0f |", r.Offered*proofsPerTx, r.UnitsPerSec)
		}
		note := ""
		if r.Short {
			note = " (source ran dry)"
		}
		fmt.Fprintf(b, "%s %s | %s | %d | %d | %d%s |\n", row, ms(r.P50), ms(r.P95), r.Txs-r.Accepted, r.Failed, r.Lost, note)
	}
	if len(rs) > 0 {
		last := rs[len(rs)-1]
		if reasons := refusalNote(last); reasons != "" {
			fmt.Fprintf(b, "\nLast step%s\n", reasons)
		}
	}
}

func ms(d time.Duration) string { return fmt.Sprintf("%d ms", d.Milliseconds()) }

func yes(ok bool) string {
	if ok {
		return "yes"
	}
	return "**no**"
}

func maxBlocks(ps []Probe) int64 {
	var m int64
	for _, p := range ps {
		m = max(m, p.Blocks())
	}
	return m
}

func probeStats(ps []Probe) (string, string) {
	if len(ps) == 0 {
		return "no probe", ""
	}
	counts := map[int64]int{}
	var secs []float64
	for _, p := range ps {
		counts[p.Blocks()]++
		secs = append(secs, p.Seconds)
	}
	slices.Sort(secs)
	var parts []string
	for k := int64(0); k <= maxBlocks(ps); k++ {
		if counts[k] > 0 {
			parts = append(parts, fmt.Sprintf("%d in %d blocks", counts[k], k))
		}
	}
	return fmt.Sprintf("%d jobs posted while bids loaded the node: %s", len(ps), strings.Join(parts, ", ")),
		fmt.Sprintf("post broadcast → lease committed p50 %.2f s, max %.2f s", secs[len(secs)/2], secs[len(secs)-1])
}

func intervals(bs []Block) string {
	var ds []time.Duration
	for i := 1; i < len(bs); i++ {
		ds = append(ds, bs[i].Time.Sub(bs[i-1].Time))
	}
	slices.Sort(ds)
	return fmt.Sprintf("p50 %s, p95 %s, max %s over %d blocks", ds[len(ds)/2].Round(time.Millisecond),
		ds[len(ds)*95/100].Round(time.Millisecond), ds[len(ds)-1].Round(time.Millisecond), len(bs))
}

// machine describes the CPU and memory.
func machine() string {
	model, mem := "unknown CPU", ""
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				model = strings.TrimSpace(v)
				break
			}
		}
		f.Close()
	}
	if f, err := os.Open("/proc/meminfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			var kb int64
			if n, _ := fmt.Sscanf(sc.Text(), "MemTotal: %d kB", &kb); n == 1 {
				mem = fmt.Sprintf(", %.0f GiB RAM", float64(kb)/(1<<20))
				break
			}
		}
		f.Close()
	}
	return fmt.Sprintf("%s, %d cores%s", model, runtime.NumCPU(), mem)
}

func commit() string {
	out, err := exec.Command("git", "describe", "--always", "--dirty").Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(out))
}
