// Command demo is `make demo`: the whole idlegpu story on one machine in a
// few minutes, with real processes — a single-node chain with 1 s blocks and
// short epochs, two providers running idlegpu-agent on simulated H100s, and
// a renter. It prints each step as it happens, ends with a table of the
// money, and exits 0 only if every figure is what the protocol's arithmetic
// says it must be.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/idlegpu/idlegpu/agent/config"
	"github.com/idlegpu/idlegpu/scripts/harness"
)

const (
	model       = "NVIDIA H100 80GB HBM3"
	epochSecs   = 15
	jobGPUs     = 2
	jobSeconds  = 45 // three epochs
	maxPrice    = 1_200_000
	askA        = 900_000   // provider A's preemptible floor, uusdc per GPU-hour
	askB        = 1_000_000 // provider B's
	onDemandAsk = 2_000_000 // both providers' on-demand floor, uusdc per GPU-hour
	demoImage   = "registry.example/idlegpu/demo-train@sha256:3b1c9f0d2a4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8"
	stepTimeout = 90 * time.Second
)

func main() {
	bin := flag.String("bin", "build", "directory with idlegpud, idlegpu-agent and idlegpu-web (make build)")
	keep := flag.Bool("keep", false, "keep the chain, the agents and the web app running after the story, until Ctrl-C")
	flag.Parse()
	root, err := os.Getwd()
	if err != nil {
		fatal("%v", err)
	}
	d := harness.NewProgram("demo")
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	storyDone := make(chan struct{})
	go func() { // Ctrl-C during the story: stop everything started, remove the homes
		select {
		case <-sig:
			fmt.Println("\ninterrupted: stopping")
			d.FailNow()
		case <-storyDone:
		}
	}()
	bins := harness.Binaries{Idlegpud: filepath.Join(*bin, "idlegpud"), Agent: filepath.Join(*bin, "idlegpu-agent")}
	for _, b := range []string{bins.Idlegpud, bins.Agent} {
		if _, err := os.Stat(b); err != nil {
			fatal("%s missing: run `make build`", b)
		}
	}
	if bins.Idlegpud, err = filepath.Abs(bins.Idlegpud); err != nil {
		fatal("%v", err)
	}
	if bins.Agent, err = filepath.Abs(bins.Agent); err != nil {
		fatal("%v", err)
	}
	url, ok := run(d, root, bins, *bin)
	close(storyDone)
	if url != "" {
		if *keep {
			fmt.Printf("\nthe web app is at %s (the market, lease 1, the providers); everything keeps running until Ctrl-C\n", url)
			<-sig
			fmt.Println("\nstopping")
		} else {
			fmt.Printf("\nthe web app served this chain at %s while it ran; `make demo-web` keeps it up to look around\n", url)
		}
	}
	d.Close()
	if !ok {
		os.Exit(1)
	}
}

// run is the story; false when a figure is not what it must be. It ends
// with the web app serving the chain and returns its URL.
func run(d *harness.Program, root string, bins harness.Binaries, bin string) (string, bool) {
	say("starting a single-node chain: 1 s blocks, %d s epochs, 1 s samples, 80 %% of them required (demo genesis)", epochSecs)
	c := harness.NewChain(d, bins, root, harness.GenesisEdits{
		"settlement": {"epoch_seconds": strconv.Itoa(epochSecs), "sample_interval_seconds": "1", "proof_grace_seconds": "30",
			// A 15 s epoch of 1 s samples loses a tenth to a tick of job start-up; 1 h epochs lose nothing.
			"min_samples_ratio_bps": 8000},
	})
	renter := c.Address("alice")
	say("chain up at height %d; renter %s holds %s uusdc", c.Height(), short(renter), commas(c.Balance(renter, "uusdc")))

	say("GPU backend: simulated %s GPUs (the agent's `auto` backend uses NVML where the NVIDIA driver loads; `make gpu-smoke` checks a real GPU)", model)
	say("job runner: process (the job runs locally with only its GPUs in CUDA_VISIBLE_DEVICES; production agents use the docker runner)")
	a := newProvider(d, c, bins, "A", 4, 1, askA)
	b := newProvider(d, c, bins, "B", 2, 2, askB)
	harness.WaitFor(d, stepTimeout, "both offers open", func() bool { return offerOpen(c, a.Addr) && offerOpen(c, b.Addr) })
	passedA, beforeA := requiredAudits(c, a.Addr)
	passedB, beforeB := requiredAudits(c, b.Addr)
	say("every GPU passed its required audit before its first offer: %d of provider A's, %d of provider B's, each a memwalk/v1 table of the simulated model walked on the agent's CPU and judged CORRECT on chain from %d sampled segments",
		passedA, passedB, auditSamples(c))
	say("provider A offers 4 GPUs at %s, provider B 2 GPUs at %s (preemptible lane, per GPU-hour)", usdc(askA), usdc(askB))

	renterBefore := c.Balance(renter, "uusdc")
	manifest := filepath.Join(d.TempDir(), "manifest.json")
	m, _ := json.Marshal(map[string]any{"command": []string{"sh", "-c",
		`echo "training on GPUs $CUDA_VISIBLE_DEVICES (lease $IDLEGPU_LEASE_ID)"; i=0; while :; do i=$((i+1)); echo "step $i: loss $((1000/(i+1)))e-3"; sleep 5; done`, "idlegpu-demo-job"}})
	must(os.WriteFile(manifest, m, 0o600))
	silverRefused := refusedSilver(c, renter, manifest)
	say("a SILVER job at %s/GPU-h is refused before anything is signed: the on-demand offers fit, but new providers start below SILVER's floor — %q", usdc(onDemandAsk), silverRefused)

	post := c.Tx("alice", "auction", "post-job", "--gpus", strconv.Itoa(jobGPUs), "--model", model, "--min-memory", "80GB",
		"--region", "eu", "--tier", "bronze", "--duration", fmt.Sprintf("%ds", jobSeconds), "--max-price", usdcFlag(maxPrice),
		"--bid-window", "0", "--image", demoImage, "--manifest", manifest, "--workload", "training")
	deposit := ceilDiv(maxPrice*jobGPUs*jobSeconds, 3600)
	say("renter posts a %d-GPU BRONZE job for %d s at most %s/GPU-h, escrowing %s (tx %s)", jobGPUs, jobSeconds, usdc(maxPrice), usdc(deposit), post.Hash)

	l := c.Lease(1)
	relA, relB := reliability(c, a.Addr), reliability(c, b.Addr)
	// Second price: the runner-up's price × winner's reliability / runner-up's, capped at the max, never below the ask.
	wantPrice := max(min(int64(maxPrice), int64(askB)*relA/relB), askA)
	say("the auction cleared in block %d: lease 1 to provider %s at %s/GPU-h — it asked %s, the runner-up asked %s, and SECOND_PRICE pays the runner-up's price (reliability %d vs %d bps)",
		post.Height, providerName(l.Provider, a.Addr, b.Addr), usdc(l.Price.Int()), usdc(askA), usdc(askB), relA, relB)
	postTime := c.BlockTime(post.Height)
	say("post → lease: the job's block is at %s, the lease was created at %s (Δ %s: instant match)",
		postTime.Format(time.StampMilli), l.CreatedAt.Format(time.StampMilli), l.CreatedAt.Sub(postTime))
	checks := []check{
		{"provider A's GPUs audited before the offer", 4, passedA}, {"provider B's GPUs audited before the offer", 2, passedB},
		{"provider A's offer after its audits", 1, boolInt(beforeA)}, {"provider B's offer after its audits", 1, boolInt(beforeB)},
		{"SILVER job refused by the market check, nothing sent", 1, boolInt(silverRefused != "")},
		{"lease created in the post's block", postTime.UnixNano(), l.CreatedAt.UnixNano()},
		{"winner", 1, boolInt(l.Provider == a.Addr)},
		{"clearing price (second price)", wantPrice, l.Price.Int()},
	}
	escrow := ceilDiv(wantPrice*jobGPUs*jobSeconds, 3600)
	say("escrow cut to ceil(price × GPUs × duration / 3600) = %s; %s went back to the renter at once", usdc(l.Escrow.Int()), usdc(deposit-escrow))
	checks = append(checks, check{"escrow after clearing", escrow, l.Escrow.Int()})

	out := string(c.CLI("lease", "send-manifest", "1", manifest, "--from", "alice"))
	say("renter sends the manifest to the provider's https endpoint (pinned certificate from chain): %s", strings.TrimSpace(out))
	l = c.WaitLease(1, "LEASE_STATUS_ACTIVE", stepTimeout)
	say("the agent verified it, started the job and the lease at %s", l.Start.Format(time.TimeOnly))

	var proofs map[int64]proofRec
	for k := int64(0); k < jobSeconds/epochSecs; k++ {
		harness.WaitFor(d, stepTimeout, fmt.Sprintf("epoch %d settled", k), func() bool {
			settled := nextEpoch(c, 1) > k // asked first: a proof landing between the two queries is seen
			proofs = leaseProofs(c)
			_, proven := proofs[k]
			return proven || settled
		})
		p, proven := proofs[k]
		if !proven {
			var raw json.RawMessage
			c.TryQuery(&raw, "settlement", "proofs", "1")
			d.Errorf("epoch %d was settled without a proof (the chain counted it missed); the chain's proofs of lease 1: %s\nprovider A's agent log ends:\n%s",
				k, raw, indent(harness.Tail(a.Output(), 40)))
			d.FailNow()
		}
		say("epoch %d proven: %s paid to provider A, %s protocol fee (%d samples per GPU, root %s…)", k, usdc(p.Paid), usdc(p.Fee), p.Samples, p.Root[:12])
	}
	logs := string(c.CLI("lease", "logs", "1", "--from", "alice"))
	say("renter reads the job's logs from the endpoint:\n%s", indent(harness.Tail(logs, 3)))
	// The renter's own check of a proof: the epoch's raw samples, each proven
	// under the root on chain and judged by the chain's fraud rule.
	say("renter checks epoch 0's samples against its proof: %s", strings.TrimSpace(string(c.CLI("lease", "check", "1", "0", "--from", "alice"))))
	l = c.WaitLease(1, "LEASE_STATUS_COMPLETED", stepTimeout)
	say("lease 1 completed: every epoch settled")

	paid := (wantPrice * jobGPUs * jobSeconds) / 3600
	var fees, sumPaid int64
	for k := int64(0); k < jobSeconds/epochSecs; k++ {
		p := proofs[k]
		due := func(s int64) int64 { return wantPrice * jobGPUs * s / 3600 }
		wantPay := due((k+1)*epochSecs) - due(k*epochSecs)
		// The fee is the take rate of the lease's cumulative payments, less
		// what earlier epochs took: the fees sum to the rate of the total.
		feeUpTo := func(s int64) int64 { return due(s) * takeRate(c) / 10_000 }
		checks = append(checks, check{fmt.Sprintf("epoch %d payment", k), wantPay, p.Paid},
			check{fmt.Sprintf("epoch %d fee", k), feeUpTo((k+1)*epochSecs) - feeUpTo(k*epochSecs), p.Fee})
		fees += p.Fee
		sumPaid += p.Paid
	}
	checks = append(checks, check{"paid to provider", paid, l.Paid.Int()}, check{"sum of epoch payments", paid, sumPaid})
	earned := paid - fees
	harness.WaitFor(d, stepTimeout, "provider A's claim", func() bool { return c.Balance(a.Addr, "uusdc") == earned })
	say("provider A's agent claimed its rewards: %s now in its account", usdc(c.Balance(a.Addr, "uusdc")))
	refunded := deposit - paid
	checks = append(checks,
		check{"renter's spend", paid, renterBefore - c.Balance(renter, "uusdc")},
		check{"provider A's earnings", earned, c.Balance(a.Addr, "uusdc")},
		check{"provider B's earnings", 0, c.Balance(b.Addr, "uusdc")})
	rel := reliability(c, a.Addr)

	fmt.Println()
	fmt.Println("  what                       amount")
	row := func(what string, v int64) { fmt.Printf("  %-26s %s\n", what, usdc(v)) }
	row("escrow deposited", deposit)
	row("paid to provider", l.Paid.Int())
	row("protocol fee", fees)
	row("refunded to renter", refunded)
	row("provider A earnings", c.Balance(a.Addr, "uusdc"))
	fmt.Printf("  %-26s %d.%02d %%\n", "provider A reliability", rel/100, rel%100)
	fmt.Printf("  %-26s %s\n", "tx: post job", post.Hash)
	for _, name := range []string{"lease started", "proofs accepted", "rewards claimed"} {
		for _, tx := range agentTxs(a.Output(), name) {
			fmt.Printf("  %-26s %s\n", "tx: "+name, tx)
		}
	}
	fmt.Println()
	ok := true
	for _, ch := range checks {
		if ch.want != ch.got {
			ok = false
			fmt.Printf("  MISMATCH %-24s want %d, got %d\n", ch.what, ch.want, ch.got)
		}
	}
	if ok {
		fmt.Printf("every figure matches the expected arithmetic (%d checks)\n", len(checks))
	}
	url, webOK := startWeb(d, c, bin, a.Addr, earned)
	if webOK {
		say("the web app indexed the chain and shows lease 1's proven epochs and provider A's earnings: %s", url)
	}
	return url, ok && webOK
}

type check struct {
	what      string
	want, got int64
}

// newProvider funds an operator key for an agent, registers and bonds it
// through `idlegpu-agent register`, and starts `idlegpu-agent run`.
func newProvider(d *harness.Program, c *harness.Chain, bins harness.Binaries, name string, gpus int, seed int64, ask int64) *harness.Agent {
	a := harness.NewAgent(d, c, bins, harness.AgentOptions{GPUs: gpus, Seed: seed, Edit: func(cfg *config.Config) {
		cfg.Policy.Prices = []config.Price{{Model: model, OnDemand: fmt.Sprintf("%duusdc", onDemandAsk), Preemptible: fmt.Sprintf("%duusdc", ask)}}
		cfg.Rewards.ClaimEvery = "10s"
	}})
	c.Tx("alice", "bank", "send", "alice", a.Addr, "1000000000ugpu")
	bond := fmt.Sprintf("%dugpu", int64(gpus)*100_000_000)
	a.CLI("register", "--region", "eu-de-fra1", "--endpoint", a.Endpoint, "--bond", bond, "--moniker", "provider "+name)
	a.Start("--log-format", "json")
	say("provider %s (%s) registered %d GPUs, bonded %s, agent running", name, short(a.Addr), gpus, bond)
	return a
}

func offerOpen(c *harness.Chain, provider string) bool {
	var o struct {
		Offers []struct {
			Status string `json:"status"`
		} `json:"offers"`
	}
	return c.TryQuery(&o, "offer", "provider-offers", provider) && len(o.Offers) == 1 && o.Offers[0].Status == "OFFER_STATUS_OPEN"
}

// requiredAudits counts the provider's required audits judged CORRECT and
// says whether its offer was created after every one of them.
func requiredAudits(c *harness.Chain, provider string) (int64, bool) {
	var res struct {
		Audits []struct {
			Status     string    `json:"status"`
			Reason     string    `json:"reason"`
			ResolvedAt time.Time `json:"resolved_at"`
		} `json:"audits"`
	}
	c.Query(&res, "settlement", "audits", "--provider", provider)
	var o struct {
		Offers []struct {
			CreatedAt time.Time `json:"created_at"`
		} `json:"offers"`
	}
	c.Query(&o, "offer", "provider-offers", provider)
	n, after := int64(0), len(o.Offers) == 1
	for _, a := range res.Audits {
		if a.Status == "AUDIT_STATUS_CORRECT" && a.Reason == "AUDIT_REASON_REQUIRED" {
			n++
			after = after && !o.Offers[0].CreatedAt.Before(a.ResolvedAt)
		}
	}
	return n, after
}

// auditSamples is the chain's audit_samples param.
func auditSamples(c *harness.Chain) int64 {
	var p struct {
		Params struct {
			AuditSamples int64 `json:"audit_samples"`
		} `json:"params"`
	}
	c.Query(&p, "settlement", "params")
	return p.Params.AuditSamples
}

func reliability(c *harness.Chain, provider string) int64 {
	var p struct {
		Reputation struct {
			Reliability int64 `json:"reliability_bps"`
		} `json:"reputation"`
	}
	c.Query(&p, "provider", "provider", provider)
	return p.Reputation.Reliability
}

func takeRate(c *harness.Chain) int64 {
	var p struct {
		Params struct {
			TakeRate int64 `json:"take_rate_bps"`
		} `json:"params"`
	}
	c.Query(&p, "settlement", "params")
	return p.Params.TakeRate
}

type proofRec struct {
	Epoch     int64
	Paid, Fee int64
	Samples   int64
	Root      string
}

func leaseProofs(c *harness.Chain) map[int64]proofRec {
	var r struct {
		Proofs []struct {
			Proof struct {
				Epoch       string `json:"epoch"`
				SamplesRoot string `json:"samples_root"`
				Gpus        []struct {
					Samples int64 `json:"samples"`
				} `json:"gpus"`
			} `json:"proof"`
			Paid harness.Coin `json:"paid"`
			Fee  harness.Coin `json:"fee"`
		} `json:"proofs"`
	}
	if !c.TryQuery(&r, "settlement", "proofs", "1") {
		return nil
	}
	out := make(map[int64]proofRec, len(r.Proofs))
	for _, p := range r.Proofs {
		k, _ := strconv.ParseInt(p.Proof.Epoch, 10, 64) // epoch 0 is omitted in JSON
		rec := proofRec{Epoch: k, Paid: p.Paid.Int(), Fee: p.Fee.Int(), Root: p.Proof.SamplesRoot + "            "}
		if len(p.Proof.Gpus) > 0 {
			rec.Samples = p.Proof.Gpus[0].Samples
		}
		out[k] = rec
	}
	return out
}

// nextEpoch is a lease's first epoch neither proven nor missed.
func nextEpoch(c *harness.Chain, lease int) int64 {
	var r struct {
		Progress struct {
			NextEpoch string `json:"next_epoch"`
		} `json:"progress"`
	}
	if !c.TryQuery(&r, "settlement", "progress", strconv.Itoa(lease)) {
		return 0
	}
	k, _ := strconv.ParseInt(r.Progress.NextEpoch, 10, 64)
	return k
}

// agentTxs are the tx hashes of the agent's JSON log lines with msg.
func agentTxs(log, msg string) []string {
	var out []string
	sc := bufio.NewScanner(strings.NewReader(log))
	for sc.Scan() {
		var line struct {
			Msg string `json:"msg"`
			Tx  string `json:"tx"`
		}
		if json.Unmarshal(sc.Bytes(), &line) == nil && line.Msg == msg && line.Tx != "" {
			out = append(out, line.Tx)
		}
	}
	return out
}

func providerName(addr, a, b string) string {
	switch addr {
	case a:
		return "A"
	case b:
		return "B"
	}
	return short(addr)
}

var start = time.Now()

func say(format string, args ...any) {
	fmt.Printf("[%5.1fs] %s\n", time.Since(start).Seconds(), fmt.Sprintf(format, args...))
}

func usdc(u int64) string {
	return fmt.Sprintf("%s uusdc (%d.%06d USDC)", commas(u), u/1_000_000, u%1_000_000)
}

func usdcFlag(u int64) string { return fmt.Sprintf("%d.%06dusdc/gpu-h", u/1_000_000, u%1_000_000) }

func commas(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func short(addr string) string {
	if len(addr) < 16 {
		return addr
	}
	return addr[:10] + "…" + addr[len(addr)-4:]
}

func indent(s string) string { return "           " + strings.ReplaceAll(s, "\n", "\n           ") }

func ceilDiv(a, b int64) int64 { return (a + b - 1) / b }

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func must(err error) {
	if err != nil {
		fatal("%v", err)
	}
}

func fatal(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "demo: "+format+"\n", args...)
	os.Exit(1)
}

// refusedSilver posts a SILVER job that the on-demand offers fit and
// returns the first line of post-job's refusal: both providers are new,
// at x/provider's initial reliability, below SILVER's floor, so the job
// could never clear. The renter's balances and the job count must not
// move: the check runs before anything is signed.
func refusedSilver(c *harness.Chain, renter, manifest string) string {
	before, beforeFee := c.Balance(renter, "uusdc"), c.Balance(renter, "ugpu")
	out, err := c.TryCLI("tx", "auction", "post-job", "--gpus", strconv.Itoa(jobGPUs), "--model", model, "--tier", "silver",
		"--duration", fmt.Sprintf("%ds", jobSeconds), "--max-price", usdcFlag(onDemandAsk), "--bid-window", "0",
		"--image", demoImage, "--manifest", manifest, "--workload", "training", "--from", "alice", "--fees", "1000ugpu", "--yes")
	first, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	var jobs struct {
		Jobs []json.RawMessage `json:"jobs"`
	}
	c.Query(&jobs, "auction", "renter-jobs", renter)
	want := "may serve silver now: silver needs 95 % reliability and the best of them has 90 %"
	if err == nil || !strings.Contains(first, want) || len(jobs.Jobs) != 0 ||
		c.Balance(renter, "uusdc") != before || c.Balance(renter, "ugpu") != beforeFee {
		fatal("post-job --tier silver: want a refusal containing %q, no job and unchanged balances; got err %v, %d job(s), output %s", want, err, len(jobs.Jobs), out)
	}
	return strings.TrimPrefix(first, "Error: ")
}
