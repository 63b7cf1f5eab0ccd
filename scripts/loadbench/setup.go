package main

import (
	"context"
	"fmt"
	"sort"
	"sync"

	"github.com/cosmos/cosmos-sdk/crypto/keyring"
	cryptotypes "github.com/cosmos/cosmos-sdk/crypto/types"
	sdk "github.com/cosmos/cosmos-sdk/types"
	"github.com/cosmos/cosmos-sdk/types/query"
	banktypes "github.com/cosmos/cosmos-sdk/x/bank/types"

	"github.com/idlegpu/idlegpu/scripts/harness"
	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
	"github.com/idlegpu/idlegpu/x/base/chaincfg"
	offertypes "github.com/idlegpu/idlegpu/x/offer/types"
	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
)

// The market the benchmark builds before it measures.
const (
	numProviders = 100
	leaseGPUs    = 20 // per provider, each in a 1-GPU ACTIVE lease: the proofs' leases
	bidGPUs      = 4  // per provider, in the offer its bids name
	numRenters   = 10
	numBidJobs   = 100 // open jobs (long bid window) the providers bid on
	leaseSeconds = 3 * 3600
	h100         = "NVIDIA H100 80GB HBM3"
	a100         = "NVIDIA A100-SXM4-80GB" // the probe provider's: only probe jobs ask for it
	probeGPUs    = 64

	certHash = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
	digest   = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	manifest = "a3f1c2d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90"
)

// Prices in uusdc per GPU-hour: leases clear on the cheap offers, bids are
// placed on the dear ones, probe jobs clear on the probe provider's.
var (
	leaseFloor   = sdk.NewInt64Coin(chaincfg.USDCDenom, 1_000_000)
	leaseMax     = sdk.NewInt64Coin(chaincfg.USDCDenom, 1_500_000)
	bidFloor     = sdk.NewInt64Coin(chaincfg.USDCDenom, 2_000_000)
	bidJobMax    = sdk.NewInt64Coin(chaincfg.USDCDenom, 3_000_000)
	probeFloor   = sdk.NewInt64Coin(chaincfg.USDCDenom, 2_500_000)
	probeJobMax  = sdk.NewInt64Coin(chaincfg.USDCDenom, 3_000_000)
	providerUgpu = int64(5_000_000_000) // a bond for 24 GPUs (2.4e9) and fees
	renterUsdc   = int64(20_000_000_000)
)

type provider struct {
	*account
	index    int
	bidOffer uint64
	leases   []*benchLease
}

// market is everyone the benchmark acts for, set up on chain.
type market struct {
	c         *chainClient
	providers []*provider
	renters   []*account
	probe     *provider // serves probe jobs only
	prober    *account  // posts them
	starter   *account  // posts the start sweep's jobs (start.go)
	bidJobs   []uint64
}

// aliceKey reads the funded dev key from the node's test keyring.
func aliceKey(home string, c *chainClient) (*account, error) {
	kr, err := keyring.New(sdk.KeyringServiceName(), keyring.BackendTest, home, nil, c.enc.Codec)
	if err != nil {
		return nil, err
	}
	rec, err := kr.Key("alice")
	if err != nil {
		return nil, err
	}
	local := rec.GetLocal()
	if local == nil || local.PrivKey == nil {
		return nil, fmt.Errorf("alice's key is not local")
	}
	priv, ok := local.PrivKey.GetCachedValue().(cryptotypes.PrivKey)
	if !ok {
		return nil, fmt.Errorf("alice's key: unexpected %T", local.PrivKey.GetCachedValue())
	}
	return &account{priv: priv, addr: sdk.AccAddress(priv.PubKey().Address())}, nil
}

// benchGPUs are the UUIDs of every GPU the benchmark registers: the genesis
// gives them an audit pass, as a network that started with them verified
// (measuring the market, not thousands of audits).
func benchGPUs() []harness.Pass {
	var out []harness.Pass
	for p := range numProviders {
		op := newAccount(fmt.Sprintf("bench-provider-%d", p)).String()
		for _, g := range gpuInfos(p, h100, 81559, leaseGPUs+bidGPUs) {
			out = append(out, harness.Pass{GPU: g.Uuid, Provider: op})
		}
	}
	probe := newAccount("bench-probe-provider").String()
	for _, g := range gpuInfos(numProviders, a100, 81920, probeGPUs) {
		out = append(out, harness.Pass{GPU: g.Uuid, Provider: probe})
	}
	return out
}

func gpuInfos(p int, model string, mem uint64, n int) []providertypes.GPUInfo {
	out := make([]providertypes.GPUInfo, n)
	for i := range out {
		out[i] = providertypes.GPUInfo{
			Uuid: fmt.Sprintf("GPU-%08x-%04x-2222-3333-444455556666", p, i), Model: model, MemoryMib: mem,
			PciBusId: fmt.Sprintf("00000000:%02X:00.0", i), DriverVersion: "550.54.15", VbiosVersion: "96.00.89.00.01",
		}
	}
	return out
}

func offerMsg(p *account, gpus []providertypes.GPUInfo, price sdk.Coin) *offertypes.MsgCreateOffer {
	uuids := make([]string, len(gpus))
	for i, g := range gpus {
		uuids[i] = g.Uuid
	}
	return &offertypes.MsgCreateOffer{Signer: p.String(), Provider: p.String(), GpuUuids: uuids, Terms: offertypes.OfferTerms{
		PricePreemptible: &price, Lanes: uint32(offertypes.LANE_PREEMPTIBLE), Workloads: offertypes.AllWorkloads,
	}}
}

func jobSpec(model string, max sdk.Coin, bidWindow uint32) auctiontypes.JobSpec {
	return auctiontypes.JobSpec{
		Image: "ghcr.io/idlegpu/bench:1", ImageDigest: digest, ManifestHash: manifest, Workload: offertypes.WORKLOAD_TRAINING,
		GpuCount: 1, Models: []string{model}, Tier: auctiontypes.TIER_BRONZE, Preemptible: true, DurationSeconds: leaseSeconds,
		MaxPrice: max, BidWindowBlocks: bidWindow,
	}
}

// parallel runs f for each index, n at a time; the first error wins.
func parallel(n, width int, f func(i int) error) error {
	var wg sync.WaitGroup
	errs := make(chan error, n)
	sem := make(chan struct{}, width)
	for i := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if err := f(i); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	return <-errs
}

// setupMarket funds the accounts, registers and bonds the providers with
// their offers, posts the lease jobs (instant match) and starts their
// leases, and posts the open jobs the bids go to.
func setupMarket(ctx context.Context, c *chainClient, home string) (*market, error) {
	m := &market{c: c}
	for i := range numProviders {
		m.providers = append(m.providers, &provider{account: newAccount(fmt.Sprintf("bench-provider-%d", i)), index: i})
	}
	for i := range numRenters {
		m.renters = append(m.renters, newAccount(fmt.Sprintf("bench-renter-%d", i)))
	}
	m.probe = &provider{account: newAccount("bench-probe-provider"), index: numProviders}
	m.prober = newAccount("bench-prober")
	m.starter = newAccount("bench-starter")

	alice, err := aliceKey(home, c)
	if err != nil {
		return nil, fmt.Errorf("alice's key: %w", err)
	}
	if err := c.load(ctx, alice); err != nil {
		return nil, err
	}
	send := banktypes.MsgMultiSend{}
	total := sdk.NewCoins()
	pay := func(a *account, coins sdk.Coins) {
		send.Outputs = append(send.Outputs, banktypes.Output{Address: a.String(), Coins: coins})
		total = total.Add(coins...)
	}
	for _, p := range m.providers {
		pay(p.account, sdk.NewCoins(sdk.NewInt64Coin(chaincfg.BondDenom, providerUgpu)))
	}
	pay(m.probe.account, sdk.NewCoins(sdk.NewInt64Coin(chaincfg.BondDenom, 2*providerUgpu))) // bond for 64 GPUs
	for _, r := range append(m.renters, m.prober, m.starter) {
		pay(r, sdk.NewCoins(sdk.NewInt64Coin(chaincfg.BondDenom, 1_000_000_000), sdk.NewInt64Coin(chaincfg.USDCDenom, renterUsdc)))
	}
	send.Inputs = []banktypes.Input{{Address: alice.String(), Coins: total}}
	if _, err := c.submit(ctx, alice, 20_000_000, &send); err != nil {
		return nil, fmt.Errorf("funding: %w", err)
	}
	everyone := []*account{m.probe.account, m.prober, m.starter}
	for _, p := range m.providers {
		everyone = append(everyone, p.account)
	}
	everyone = append(everyone, m.renters...)
	if err := parallel(len(everyone), 16, func(i int) error { return c.load(ctx, everyone[i]) }); err != nil {
		return nil, err
	}
	logf("setup: funded %d providers and %d renters", numProviders+1, numRenters+1)

	pparams, err := providertypes.NewQueryClient(c.q).Params(ctx, &providertypes.QueryParamsRequest{})
	if err != nil {
		return nil, err
	}
	// One tx per provider: register, its GPUs, the bond they need, its offers.
	type offerSpec struct {
		gpus  int
		price sdk.Coin
	}
	register := func(p *provider, model string, mem uint64, offers ...offerSpec) error {
		n := 0
		for _, o := range offers {
			n += o.gpus
		}
		gpus := gpuInfos(p.index, model, mem, n)
		msgs := []sdk.Msg{
			&providertypes.MsgRegisterProvider{Operator: p.String(), Moniker: fmt.Sprintf("bench %d", p.index),
				Region: "eu-de", Endpoint: fmt.Sprintf("https://p%d.bench.invalid:8443", p.index), TlsCertSha256: certHash},
			&providertypes.MsgRegisterGPUs{Signer: p.String(), Provider: p.String(), Gpus: gpus},
			&providertypes.MsgBond{Operator: p.String(), Amount: sdk.NewCoin(chaincfg.BondDenom, pparams.Params.RequiredStake(uint32(n)))},
		}
		at := 0
		for _, o := range offers {
			msgs = append(msgs, offerMsg(p.account, gpus[at:at+o.gpus], o.price))
			at += o.gpus
		}
		_, err := c.submit(ctx, p.account, 10_000_000, msgs...)
		return err
	}
	if err := parallel(numProviders, numProviders, func(i int) error {
		return register(m.providers[i], h100, 81559, offerSpec{leaseGPUs, leaseFloor}, offerSpec{bidGPUs, bidFloor})
	}); err != nil {
		return nil, fmt.Errorf("providers: %w", err)
	}
	if err := register(m.probe, a100, 81920, offerSpec{probeGPUs, probeFloor}); err != nil {
		return nil, fmt.Errorf("probe provider: %w", err)
	}
	logf("setup: %d providers registered, bonded, with two offers each (%d GPUs at %s, %d at %s)",
		numProviders, leaseGPUs, leaseFloor, bidGPUs, bidFloor)

	// Lease jobs, 20 to a tx, cleared in their block against the cheap offers.
	const perTx = 20
	jobs := numProviders * leaseGPUs
	if err := parallel(numRenters, numRenters, func(r int) error {
		for done := r * perTx; done < jobs; done += numRenters * perTx {
			var msgs []sdk.Msg
			for range min(perTx, jobs-done) {
				msgs = append(msgs, &auctiontypes.MsgPostJob{Renter: m.renters[r].String(), Spec: jobSpec(h100, leaseMax, 0)})
			}
			if _, err := c.submit(ctx, m.renters[r], 40_000_000, msgs...); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return nil, fmt.Errorf("lease jobs: %w", err)
	}
	// Each provider starts the leases it won.
	aq := auctiontypes.NewQueryClient(c.q)
	if err := parallel(numProviders, 16, func(i int) error {
		p := m.providers[i]
		res, err := aq.ProviderLeases(ctx, &auctiontypes.QueryProviderLeasesRequest{Provider: p.String(),
			Status: auctiontypes.LEASE_STATUS_PENDING, Pagination: &query.PageRequest{Limit: 1000}})
		if err != nil {
			return err
		}
		var msgs []sdk.Msg
		for _, l := range res.Leases {
			msgs = append(msgs, &auctiontypes.MsgStartLease{Signer: p.String(), LeaseId: l.Id})
		}
		if len(msgs) == 0 {
			return nil
		}
		_, err = c.submit(ctx, p.account, uint64(len(msgs))*1_000_000, msgs...)
		return err
	}); err != nil {
		return nil, fmt.Errorf("starting leases: %w", err)
	}
	if err := m.loadLeases(ctx); err != nil {
		return nil, err
	}
	n := 0
	for _, p := range m.providers {
		n += len(p.leases)
	}
	if n != jobs {
		return nil, fmt.Errorf("%d ACTIVE leases, want %d", n, jobs)
	}
	logf("setup: %d 1-GPU leases ACTIVE (%d providers, %d each at most)", n, numProviders, leaseGPUs)

	// The open jobs the bids go to, and each provider's bid offer.
	var msgs []sdk.Msg
	for range numBidJobs {
		msgs = append(msgs, &auctiontypes.MsgPostJob{Renter: m.renters[0].String(), Spec: jobSpec(h100, bidJobMax, auctiontypes.MaxBidWindowBlocks)})
	}
	if _, err := c.submit(ctx, m.renters[0], 20_000_000, msgs...); err != nil {
		return nil, fmt.Errorf("bid jobs: %w", err)
	}
	open, err := aq.RenterJobs(ctx, &auctiontypes.QueryRenterJobsRequest{Renter: m.renters[0].String(), Pagination: &query.PageRequest{Limit: 10_000}})
	if err != nil {
		return nil, err
	}
	for _, j := range open.Jobs {
		if j.Status == auctiontypes.JOB_STATUS_OPEN {
			m.bidJobs = append(m.bidJobs, j.Id)
		}
	}
	if len(m.bidJobs) != numBidJobs {
		return nil, fmt.Errorf("%d open jobs, want %d", len(m.bidJobs), numBidJobs)
	}
	oq := offertypes.NewQueryClient(c.q)
	if err := parallel(numProviders, 16, func(i int) error {
		p := m.providers[i]
		res, err := oq.ProviderOffers(ctx, &offertypes.QueryProviderOffersRequest{Provider: p.String()})
		if err != nil {
			return err
		}
		for _, o := range res.Offers {
			if len(o.GpuUuids) == bidGPUs {
				p.bidOffer = o.Id
			}
		}
		if p.bidOffer == 0 {
			return fmt.Errorf("provider %d has no bid offer", i)
		}
		return nil
	}); err != nil {
		return nil, err
	}
	logf("setup: %d open jobs (bid window %d blocks) for the bids", len(m.bidJobs), auctiontypes.MaxBidWindowBlocks)
	return m, nil
}

// loadLeases reads every provider's ACTIVE leases and where each is settled.
func (m *market) loadLeases(ctx context.Context) error {
	aq := auctiontypes.NewQueryClient(m.c.q)
	return parallel(len(m.providers), 16, func(i int) error {
		p := m.providers[i]
		res, err := aq.ProviderLeases(ctx, &auctiontypes.QueryProviderLeasesRequest{Provider: p.String(),
			Status: auctiontypes.LEASE_STATUS_ACTIVE, Pagination: &query.PageRequest{Limit: 1000}})
		if err != nil {
			return err
		}
		p.leases = p.leases[:0]
		for _, l := range res.Leases {
			p.leases = append(p.leases, &benchLease{id: l.Id, gpu: l.GpuUuids[0], start: l.Start, duration: l.DurationSeconds})
		}
		sort.Slice(p.leases, func(a, b int) bool { return p.leases[a].id < p.leases[b].id })
		return m.resyncLeases(ctx, p)
	})
}
