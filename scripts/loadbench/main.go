// Command loadbench (`make bench`) measures what one real idlegpud node
// commits under load: signed MsgPlaceBid txs and signed MsgSubmitProofs
// txs of 100 proofs, from many accounts, at doubling offered rates until
// the node saturates; post → lease (instant match) while bids load it;
// then the same sender and observer against CometBFT's kvstore app on the
// same machine, as the baseline. It writes a markdown report.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	rpchttp "github.com/cometbft/cometbft/rpc/client/http"

	"github.com/idlegpu/idlegpu/scripts/harness"
)

type options struct {
	bin, cometbft, out, profile, only string
	step                              time.Duration
	steps                             int
	bidsFrom, proofsFrom, kvFrom      float64
	soak, soakWindow                  time.Duration
	soakBids                          float64
	soakEpoch                         time.Duration
	validators                        int
	agents                            int
	startBids                         float64
	startFor, startEvery              time.Duration
}

// benchNode is one validator's process as the soak samples it.
type benchNode struct {
	pid         int
	home, pprof string
}

func main() {
	var o options
	flag.StringVar(&o.bin, "bin", "build", "directory with idlegpud (make build)")
	flag.StringVar(&o.cometbft, "cometbft", "build/tools/cometbft", "cometbft binary for the kvstore baseline (make bench installs it)")
	flag.StringVar(&o.out, "out", "build/loadbench.md", "where the report goes")
	flag.StringVar(&o.profile, "profile", "", "if set, a directory for idlegpud CPU profiles (pprof), one per chain step")
	flag.StringVar(&o.only, "only", "proofs,bids,start,kvstore", "the sweeps to run, comma-separated")
	flag.DurationVar(&o.step, "step", 15*time.Second, "how long each offered rate is held")
	flag.IntVar(&o.steps, "steps", 8, "most rates per sweep (each doubles the last)")
	flag.Float64Var(&o.bidsFrom, "bids-from", 50, "first offered rate of bids, tx/s")
	flag.Float64Var(&o.proofsFrom, "proofs-from", 500, "first offered rate of proofs, proofs/s (100 per tx)")
	flag.Float64Var(&o.kvFrom, "kvstore-from", 200, "first offered rate against kvstore, tx/s")
	flag.DurationVar(&o.soak, "soak", 0, "if set, a soak instead of the sweeps: this long at a steady load (make soak)")
	flag.DurationVar(&o.soakWindow, "soak-window", time.Minute, "how often the soak samples the node")
	flag.Float64Var(&o.soakBids, "soak-bids", 400, "signed bids/s during the soak, beside proofs at the rate the leases end epochs")
	flag.DurationVar(&o.soakEpoch, "soak-epoch", 10*time.Second, "the soak's epoch_seconds (whole seconds)")
	flag.IntVar(&o.validators, "validators", 1, "validators on loopback (scripts/localnet.sh when more than one); the sender talks to the first")
	flag.IntVar(&o.agents, "agents", 3, "start sweep: real agents, 16 simulated GPUs each")
	flag.Float64Var(&o.startBids, "start-bids", 600, "start sweep: signed bids/s loading the node while jobs are posted (about half the bids' saturation on 2 cores)")
	flag.DurationVar(&o.startFor, "start-for", 4*time.Minute, "start sweep: how long jobs are posted")
	flag.DurationVar(&o.startEvery, "start-every", 2*time.Second, "start sweep: one job posted this often")
	flag.Parse()

	prog := harness.NewProgram("bench")
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
		<-sig
		fmt.Println("\ninterrupted: stopping")
		cancel()
		prog.FailNow()
	}()
	rep, err := run(ctx, prog, o)
	cancel()
	prog.Close()
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
	text := rep.markdown()
	fmt.Println()
	fmt.Print(text)
	if err := os.WriteFile(o.out, []byte(text), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
	fmt.Println("\nreport written to", o.out)
}

func run(ctx context.Context, prog *harness.Program, o options) (*report, error) {
	root, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	bin, err := filepath.Abs(filepath.Join(o.bin, "idlegpud"))
	if err != nil {
		return nil, err
	}
	bins := harness.Binaries{Idlegpud: bin, Agent: filepath.Join(filepath.Dir(bin), "idlegpu-agent")}
	need := []string{bins.Idlegpud}
	if o.soak == 0 && strings.Contains(o.only, "start") {
		need = append(need, bins.Agent)
	}
	if o.soak == 0 && (strings.Contains(o.only, "kvstore") || strings.Contains(o.only, "start")) {
		if o.validators > 1 {
			return nil, fmt.Errorf("the kvstore baseline and the start sweep run one node: leave them out of -only with -validators %d", o.validators)
		}
		if strings.Contains(o.only, "kvstore") {
			need = append(need, o.cometbft)
		}
	}
	for _, b := range need {
		if _, err := os.Stat(b); err != nil {
			return nil, fmt.Errorf("%s missing: run `make bench`", b)
		}
	}
	rep := &report{opts: o, started: time.Now()}
	if o.soak == 0 && !strings.Contains(o.only, "proofs") && !strings.Contains(o.only, "bids") && !strings.Contains(o.only, "kvstore") {
		if strings.Contains(o.only, "start") { // the start sweep has a chain of its own
			rep.start, err = startChain(ctx, prog, bins, root, o)
		}
		rep.finished = time.Now()
		return rep, err
	}

	// The sweeps build a backlog of epochs on purpose, so their grace is
	// long, and their epochs short to make many. A soak proves as epochs
	// end, so an epoch unproven for 15 min is missed on chain; its epochs
	// (-soak-epoch) must be longer than the slowest block under its load,
	// or a window holds no block and its epoch can only be excused.
	epoch, grace := "2", "7200"
	if o.soak > 0 {
		epoch, grace = strconv.Itoa(int(o.soakEpoch.Seconds())), "900"
	}
	edits := harness.GenesisEdits{
		"settlement": {"epoch_seconds": epoch, "sample_interval_seconds": "1", "proof_grace_seconds": grace},
	}
	logf("starting idlegpud: %d validator(s), 1 s blocks, %s s epochs of 1 s samples, %s s of grace (bench genesis)", o.validators, epoch, grace)
	var (
		c     *harness.Chain
		nodes []benchNode
		stop  = func() {}
		tail  func() string // the first node's last output
	)
	if o.validators > 1 {
		ln := harness.NewLocalnetOf(prog, bins, root, o.validators, edits, benchGPUs()...)
		c = ln.Nodes[0]
		for i, n := range ln.Nodes {
			nodes = append(nodes, benchNode{pid: ln.Pid(i), home: n.Home, pprof: ln.PprofAddr(i)})
		}
		tail = func() string {
			b, _ := os.ReadFile(filepath.Join(ln.Dir, "node0.log"))
			return string(b)
		}
	} else {
		c = harness.NewChain(prog, bins, root, edits, benchGPUs()...)
		nodes = []benchNode{{pid: c.Node.Pid(), home: c.Home, pprof: c.PprofAddr()}}
		stop = func() { c.Node.Stop(prog, syscall.SIGTERM) }
		tail = c.Node.Output
	}
	node, poller, m, err := marketOn(ctx, c, tail)
	if err != nil {
		return nil, err
	}
	var during func(string)
	if o.profile != "" {
		if err := os.MkdirAll(o.profile, 0o755); err != nil {
			return nil, err
		}
		during = func(label string) { profileNode(nodes[0].pprof, filepath.Join(o.profile, label+".pprof"), o.step) }
	}

	bids := &bidSource{m: m}
	if rep.bidTxBytes, err = bids.txSize(); err != nil {
		return nil, err
	}
	if o.soak > 0 {
		rep.soak, err = soak(ctx, o, nodes, node, poller, m)
		rep.chainBlocks = poller.Blocks()
		rep.finished = time.Now()
		return rep, err
	}
	if strings.Contains(o.only, "proofs") {
		// Proofs first: their backlog builds while the chain idles at its
		// steady 1 s blocks, so every window has a block to bind to.
		need := int(o.proofsFrom * o.step.Seconds() * 15) // the first four steps
		for t := time.Now(); m.backlog() < need && time.Since(t) < 3*time.Minute; time.Sleep(5 * time.Second) {
			logf("proofs: waiting for ended epochs to prove: %d of %d", m.backlog(), need)
		}
		logf("proofs: %d ended epochs to prove", m.backlog())
		rep.proofs, err = sweep(ctx, sweepCfg{name: "proofs", node: node, poller: poller, src: &proofSource{m: m},
			first: o.proofsFrom / proofsPerTx, steps: o.steps, d: o.step, unit: "proofs", during: during})
		if err != nil {
			return nil, err
		}
	}
	if strings.Contains(o.only, "bids") {
		pr := &prober{m: m}
		pctx, stopProbes := context.WithCancel(ctx)
		go pr.run(pctx, 4*time.Second)
		rep.bids, err = sweep(ctx, sweepCfg{name: "bids", node: node, poller: poller, src: bids,
			first: o.bidsFrom, steps: o.steps, d: o.step, during: during})
		stopProbes()
		if err != nil {
			return nil, err
		}
		rep.probes = pr.results()
	}
	rep.chainBlocks = poller.Blocks()
	stop() // the start sweep and the baseline get the machine to themselves
	if strings.Contains(o.only, "start") {
		if rep.start, err = startChain(ctx, prog, bins, root, o); err != nil {
			return nil, err
		}
	}

	if !strings.Contains(o.only, "kvstore") {
		rep.finished = time.Now()
		return rep, nil
	}
	logf("starting cometbft %s node --proxy_app=kvstore with idlegpud's consensus timeouts", o.cometbft)
	kv, err := kvstoreNode(prog, o.cometbft, c.Home)
	if err != nil {
		return nil, err
	}
	kvNode, err := newRPC(kv)
	if err != nil {
		return nil, err
	}
	kvPoller := NewPoller(kvNode, 0)
	go kvPoller.Run(ctx)
	harness.WaitFor(prog, time.Minute, "kvstore's first blocks", func() bool { return kvPoller.Latest().Height >= 3 })
	rep.kvstore, err = sweep(ctx, sweepCfg{name: "kvstore", node: kvNode, poller: kvPoller,
		src:   &kvSource{run: strconv.FormatInt(time.Now().Unix(), 36), lanes: numProviders, size: rep.bidTxBytes},
		first: o.kvFrom, steps: o.steps, d: o.step})
	if err != nil {
		return nil, err
	}
	rep.finished = time.Now()
	return rep, nil
}

// marketOn connects to a started chain, follows its blocks until ctx ends
// and sets up the benchmark's market on it.
func marketOn(ctx context.Context, c *harness.Chain, tail func() string) (*rpchttp.HTTP, *Poller, *market, error) {
	node, err := newRPC(c.RPC)
	if err != nil {
		return nil, nil, nil, err
	}
	poller := NewPoller(node, 0)
	go poller.Run(ctx)
	cc, err := newChainClient(node, c.ChainID, poller)
	if err != nil {
		return nil, nil, nil, err
	}
	m, err := setupMarket(ctx, cc, c.Home)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("setup: %w\nthe node's last output:\n%s", err, lastLines(tail(), 40))
	}
	return node, poller, m, nil
}

// profileNode saves a CPU profile of the node over d.
func profileNode(addr, path string, d time.Duration) {
	res, err := http.Get(fmt.Sprintf("http://%s/debug/pprof/profile?seconds=%d", addr, int(d.Seconds())))
	if err != nil {
		logf("profile: %v", err)
		return
	}
	defer res.Body.Close()
	f, err := os.Create(path)
	if err != nil {
		logf("profile: %v", err)
		return
	}
	defer f.Close()
	if _, err := io.Copy(f, res.Body); err != nil {
		logf("profile: %v", err)
	}
}

// lastLines is the end of a process's output, for a failure's report.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
