package main

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"time"

	rpchttp "github.com/cometbft/cometbft/rpc/client/http"
	sdk "github.com/cosmos/cosmos-sdk/types"
	"github.com/cosmos/cosmos-sdk/types/query"

	"github.com/idlegpu/idlegpu/agent/config"
	"github.com/idlegpu/idlegpu/endpoint"
	"github.com/idlegpu/idlegpu/scripts/harness"
	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
	"github.com/idlegpu/idlegpu/x/base/chaincfg"
	offertypes "github.com/idlegpu/idlegpu/x/offer/types"
	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
)

// The start sweep measures a renter's whole way from posting a job to its
// job running, with real agents (idlegpu-agent on simulated GPUs, the
// process runner) while signed bids load the node: the post clears at
// once, the renter sees its lease and sends the manifest to the agent's
// endpoint, the agent starts the job and sends MsgStartLease, and the
// lease is ACTIVE in a committed block. The bench providers are in eu-de;
// these jobs ask for North America, where only the agents offer.
const (
	startGPUsPerAgent = 16
	startRegion       = "na-us-iad1"
	startLeaseSeconds = 45
)

var (
	startFloor  = sdk.NewInt64Coin(chaincfg.USDCDenom, 1_200_000)
	startJobMax = sdk.NewInt64Coin(chaincfg.USDCDenom, 1_800_000)
	// The job sleeps past its lease: the agent ends it when the lease ends.
	startManifest = []byte(`{"command":["sleep","3600"]}`)
)

// StartProbe is one job's way to running, in seconds from the post's
// broadcast: its lease committed, then the lease ACTIVE in a committed
// block (the agent's MsgStartLease).
type StartProbe struct {
	Lease           uint64
	Leased, Running float64
	// Load is the tx/s the blocks from the post's to the start's carried:
	// the bid load in 15 s steps pauses between them to sign the next, so
	// a probe may fall in a pause.
	Load float64
}

type startResult struct {
	agents, gpus int
	every        time.Duration
	bidRate      float64
	bids         []StepResult // the load beside the probes, one a step
	loadWall     time.Duration
	probes       []StartProbe
	failures     []string
}

// startChain runs the start sweep on a chain of its own: agents prove
// every epoch, so its epochs are the e2e tests' 20 s, not the proof
// sweep's 2 s.
func startChain(ctx context.Context, prog *harness.Program, bins harness.Binaries, root string, o options) (*startResult, error) {
	logf("start: idlegpud with 20 s epochs, %d agents of %d simulated GPUs, %g bids/s beside", o.agents, startGPUsPerAgent, o.startBids)
	c := harness.NewChain(prog, bins, root, harness.GenesisEdits{
		"settlement": {"epoch_seconds": "20", "sample_interval_seconds": "1", "proof_grace_seconds": "900"},
	}, benchGPUs()...)
	defer c.Node.Stop(prog, syscall.SIGTERM)
	pctx, stopPoller := context.WithCancel(ctx)
	defer stopPoller()
	node, poller, m, err := marketOn(pctx, c, c.Node.Output)
	if err != nil {
		return nil, err
	}
	cc := m.c
	pparams, err := providertypes.NewQueryClient(cc.q).Params(ctx, &providertypes.QueryParamsRequest{})
	if err != nil {
		return nil, err
	}
	bond := pparams.Params.RequiredStake(startGPUsPerAgent)
	for i := range o.agents {
		a := harness.NewAgent(prog, c, bins, harness.AgentOptions{GPUs: startGPUsPerAgent, Seed: int64(100 + i), Edit: func(cfg *config.Config) {
			cfg.Policy.Prices = []config.Price{{Model: h100, OnDemand: "2000000uusdc", Preemptible: startFloor.String()}}
		}})
		defer a.Stop()
		c.Tx("alice", "bank", "send", "alice", a.Addr, bond.AddRaw(100_000_000).String()+chaincfg.BondDenom)
		a.CLI("register", "--region", startRegion, "--endpoint", a.Endpoint, "--bond", bond.String()+chaincfg.BondDenom, "--moniker", fmt.Sprintf("bench agent %d", i))
		a.Start()
		addr := a.Addr
		harness.WaitFor(prog, 3*time.Minute, "agent "+strconv.Itoa(i)+"'s offer", func() bool { return openGPUs(ctx, cc, addr) == startGPUsPerAgent })
	}
	logf("start: %d agents registered, their %d GPUs audited and offered at %s (preemptible)", o.agents, o.agents*startGPUsPerAgent, startFloor)

	res := &startResult{agents: o.agents, gpus: o.agents * startGPUsPerAgent, every: o.startEvery, bidRate: o.startBids}
	lctx, stopLoad := context.WithCancel(ctx)
	loadDone := make(chan struct{})
	go func() {
		defer close(loadDone)
		t0 := time.Now()
		defer func() { res.loadWall = time.Since(t0) }()
		bids := &bidSource{m: m}
		for lctx.Err() == nil {
			r, err := runStep(lctx, node, poller, bids, o.startBids, o.step)
			if err != nil {
				if lctx.Err() == nil {
					logf("start: bid load: %v", err)
				}
				return
			}
			res.bids = append(res.bids, r)
			if err := bids.After(lctx, r); err != nil {
				return
			}
		}
	}()
	s := &starter{c: cc, node: node, poller: poller, renter: m.starter, chainID: c.ChainID, clients: map[string]*endpoint.Client{}}
	time.Sleep(o.step) // the load reaches its rate first
	var wg sync.WaitGroup
	for t0 := time.Now(); time.Since(t0) < o.startFor && ctx.Err() == nil; {
		next := time.Now().Add(o.startEvery)
		sent := time.Now()
		post, err := cc.submit(ctx, m.starter, 2_000_000, &auctiontypes.MsgPostJob{Renter: m.starter.String(), Spec: startSpec()})
		if err != nil {
			s.fail(fmt.Sprintf("post: %v", err))
		} else {
			wg.Add(1)
			go func() {
				defer wg.Done()
				s.follow(ctx, sent, post)
			}()
		}
		time.Sleep(time.Until(next))
	}
	wg.Wait()
	stopLoad()
	<-loadDone
	res.probes, res.failures = s.probes, s.failures
	slices.SortFunc(res.probes, func(a, b StartProbe) int { return cmp.Compare(a.Lease, b.Lease) })
	return res, nil
}

// startSpec is a probe's job: one GPU in North America for 45 s, cleared
// at once.
func startSpec() auctiontypes.JobSpec {
	sum := sha256.Sum256(startManifest)
	return auctiontypes.JobSpec{
		Image: "ghcr.io/idlegpu/bench:1", ImageDigest: digest, ManifestHash: hex.EncodeToString(sum[:]), Workload: offertypes.WORKLOAD_TRAINING,
		GpuCount: 1, Models: []string{h100}, Regions: []string{"na"}, Tier: auctiontypes.TIER_BRONZE, Preemptible: true,
		DurationSeconds: startLeaseSeconds, MaxPrice: startJobMax,
	}
}

// openGPUs is how many GPUs a provider's OPEN offers hold.
func openGPUs(ctx context.Context, c *chainClient, provider string) int {
	res, err := offertypes.NewQueryClient(c.q).ProviderOffers(ctx, &offertypes.QueryProviderOffersRequest{Provider: provider})
	if err != nil {
		return 0
	}
	n := 0
	for _, o := range res.Offers {
		if o.Status == offertypes.OFFER_STATUS_OPEN {
			n += len(o.GpuUuids)
		}
	}
	return n
}

// starter is the renter the start sweep posts for.
type starter struct {
	c        *chainClient
	node     *rpchttp.HTTP
	poller   *Poller
	renter   *account
	chainID  string
	mu       sync.Mutex
	clients  map[string]*endpoint.Client // by provider
	probes   []StartProbe
	failures []string
}

func (s *starter) fail(msg string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failures = append(s.failures, msg)
	logf("start: %s", msg)
}

// follow is what the renter does once its post is committed: find the
// lease, send the manifest to its provider, and wait for it to be ACTIVE.
func (s *starter) follow(ctx context.Context, sent time.Time, post outcome) {
	aq := auctiontypes.NewQueryClient(s.c.q)
	lease, err := s.leaseOf(ctx, post.Height)
	if err != nil {
		s.fail(err.Error())
		return
	}
	leasedAt, ok := s.observed(lease.CreatedAt)
	leased := leasedAt.Observed
	if !ok {
		s.fail(fmt.Sprintf("lease %d: no block seen at its creation", lease.Id))
		return
	}
	cl, err := s.client(ctx, lease.Provider)
	if err != nil {
		s.fail(fmt.Sprintf("lease %d: %v", lease.Id, err))
		return
	}
	if _, err := cl.SendManifest(ctx, lease.Id, startManifest); err != nil {
		s.fail(fmt.Sprintf("lease %d: manifest: %v", lease.Id, err))
		return
	}
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		res, err := aq.Lease(ctx, &auctiontypes.QueryLeaseRequest{Id: lease.Id})
		if err != nil || res.Lease.Status == auctiontypes.LEASE_STATUS_PENDING {
			continue
		}
		running, ok := s.observed(res.Lease.Start)
		if res.Lease.Start.IsZero() || !ok {
			s.fail(fmt.Sprintf("lease %d: %s with no start block seen", lease.Id, res.Lease.Status))
			return
		}
		s.mu.Lock()
		s.probes = append(s.probes, StartProbe{Lease: lease.Id, Leased: leased.Sub(sent).Seconds(), Running: running.Observed.Sub(sent).Seconds(),
			Load: s.load(post.Height, running.Height)})
		s.mu.Unlock()
		return
	}
	s.fail(fmt.Sprintf("lease %d: not started within a minute of the manifest", lease.Id))
}

// leaseOf finds the lease the renter's post at height cleared into (the
// newest of its leases created in that block).
func (s *starter) leaseOf(ctx context.Context, height int64) (auctiontypes.Lease, error) {
	var at time.Time
	for _, b := range s.poller.Blocks() {
		if b.Height == height {
			at = b.Time
		}
	}
	res, err := auctiontypes.NewQueryClient(s.c.q).RenterLeases(ctx, &auctiontypes.QueryRenterLeasesRequest{Renter: s.renter.String(),
		Pagination: &query.PageRequest{Limit: 10_000}})
	if err != nil {
		return auctiontypes.Lease{}, err
	}
	var found *auctiontypes.Lease
	for i, l := range res.Leases {
		if l.CreatedAt.Equal(at) && (found == nil || l.Id > found.Id) {
			found = &res.Leases[i]
		}
	}
	if found == nil {
		return auctiontypes.Lease{}, fmt.Errorf("the post at height %d made no lease (no free GPU in %s?)", height, startRegion)
	}
	return *found, nil
}

// observed is the block with this time, as the poller saw it committed.
func (s *starter) observed(t time.Time) (Block, bool) {
	for _, b := range s.poller.Blocks() {
		if b.Time.Equal(t) {
			return b, true
		}
	}
	return Block{}, false
}

// load is the txs per second the blocks after from up to to carried, over
// their span (at least the one block before).
func (s *starter) load(from, to int64) float64 {
	var txs int
	var first, last time.Time
	for _, b := range s.poller.Blocks() {
		switch {
		case b.Height == from:
			first = b.Observed
		case b.Height > from && b.Height <= to:
			txs += b.Txs
			last = b.Observed
		}
	}
	if first.IsZero() || !last.After(first) {
		return 0
	}
	return float64(txs) / last.Sub(first).Seconds()
}

// client is the renter's endpoint client for a provider, its certificate
// pinned by the chain's record, its requests signed by the renter's key.
func (s *starter) client(ctx context.Context, provider string) (*endpoint.Client, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if cl, ok := s.clients[provider]; ok {
		return cl, nil
	}
	res, err := providertypes.NewQueryClient(s.c.q).Provider(ctx, &providertypes.QueryProviderRequest{Operator: provider})
	if err != nil {
		return nil, err
	}
	key := s.renter.priv
	sign := endpoint.KeySigner(func(msg []byte) ([]byte, []byte, error) {
		sig, err := key.Sign(msg)
		return sig, key.PubKey().Bytes(), err
	})
	cl := endpoint.NewClient(res.Provider.Endpoint, endpoint.Target{ChainID: s.chainID, Provider: provider}, sign, res.Provider.TlsCertSha256)
	s.clients[provider] = cl
	return cl, nil
}

// percentile of sorted xs (nearest rank).
func percentile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	i := int(p*float64(len(xs))+0.999999) - 1
	return xs[max(0, min(len(xs)-1, i))]
}
