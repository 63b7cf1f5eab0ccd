package daemon

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cosmos/cosmos-sdk/client"
	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/agent/audit"
	"github.com/idlegpu/idlegpu/agent/auditor"
	"github.com/idlegpu/idlegpu/agent/config"
	"github.com/idlegpu/idlegpu/agent/gpu"
	"github.com/idlegpu/idlegpu/agent/ingress"
	"github.com/idlegpu/idlegpu/agent/intake"
	"github.com/idlegpu/idlegpu/agent/jobdata"
	"github.com/idlegpu/idlegpu/agent/metrics"
	"github.com/idlegpu/idlegpu/agent/policy"
	"github.com/idlegpu/idlegpu/agent/proof"
	"github.com/idlegpu/idlegpu/agent/prover"
	"github.com/idlegpu/idlegpu/agent/reconciler"
	"github.com/idlegpu/idlegpu/agent/records"
	"github.com/idlegpu/idlegpu/agent/registry"
	"github.com/idlegpu/idlegpu/agent/runner"
	"github.com/idlegpu/idlegpu/chainclient"
	"github.com/idlegpu/idlegpu/endpoint"
)

const (
	// offerEvery is how often offers are checked against the policy.
	offerEvery = 30 * time.Second
	// offerHorizon is how far ahead availability windows are published.
	offerHorizon = 7 * 24 * time.Hour
	// shutdownPauseTimeout bounds pausing the offers as the agent stops.
	shutdownPauseTimeout = 20 * time.Second
)

// Deps are the parts the daemon runs on, each built by the caller from the
// configuration.
type Deps struct {
	Config  config.Config
	Chain   *chainclient.Client
	GPUs    gpu.Backend
	Runner  runner.Runner
	Metrics *metrics.Metrics
	Log     *slog.Logger
	// Version is the agent's version, named in every proof.
	Version string
	// Audits runs audit workloads on real GPUs (the CUDA driver); nil
	// with the sim backend, whose audits run on the CPU reference, or
	// where the driver could not be loaded (audits then cannot run,
	// logged, and no required audit is asked for).
	Audits audit.Runner
	// Host checks the runner, the GPUs and the disks every
	// hostCheckEvery; nil checks nothing (the machine is taken as healthy).
	Host HostChecker
}

// chainClient is what the daemon asks of *chainclient.Client: tests answer its
// transactions without a chain.
type chainClient interface {
	Submit(ctx context.Context, msgs ...sdk.Msg) (*sdk.TxResponse, error)
	HeightAt(ctx context.Context, t time.Time) (int64, error)
	FollowHeaders(ctx context.Context, from int64, fn func(chainclient.Header) error) error
	Context() client.Context
}

// Daemon is `idlegpu-agent run`: it follows the chain, keeps the provider's
// offers in line with the policy (GPUs with an audit pass only), runs
// leased jobs once their manifest arrives, samples the GPUs, proves every
// epoch, preempts BRONZE work when a GPU runs too hot, and claims rewards.
// Its auditor (agent/auditor) answers the GPUs' audits beside it.
type Daemon struct {
	cfg      config.Config
	chain    chainClient
	q        Queries
	gpus     gpu.Backend
	runner   runner.Runner
	m        *metrics.Metrics
	log      *slog.Logger
	version  string
	provider string
	signer   string

	prices     policy.Prices
	calendar   policy.Calendar
	limits     *policy.Limits
	claimEvery time.Duration

	params  Params
	devices map[string]gpu.Info
	prover  *prover.Prover
	headers *prover.Headers
	records *records.Store
	health  *Health
	// auditor follows the GPUs' audits on its own goroutines (built by
	// Run once the GPUs and params are known; nil before).
	auditor     *auditor.Auditor
	auditRunner audit.Runner

	// reg is the state of every lease, shared by the worker, the sampler
	// and the endpoint's handlers.
	reg *registry.Registry
	// samples is where the sampler writes leases' samples: the prover.
	samples sampleWriter

	// data keeps leases' inputs and outputs (jobdata.go).
	data *jobdata.Store

	// in answers the renter endpoint (agent/intake), wired on first use.
	in     *intake.Intake
	inOnce sync.Once
	tick   chan struct{}

	lastOffers time.Time
	lastClaim  time.Time
	// pausedBy is why the offers were last published PAUSED ("": open).
	pausedBy string

	// host and gate withdraw the offers while the machine cannot run
	// jobs (host_watch.go).
	host HostChecker
	gate *hostGate
	// mode is the operator's, read every step (mode_watch.go); modeErr
	// the last error reading it, logged once.
	mode    ModeState
	modeErr string
	// offersDue asks the next step to publish offers now: a GPU passed
	// its audit.
	offersDue atomic.Bool

	// ing is the ingress serving leases' inbound services (ingress.go);
	// nil when none is configured.
	ing *ingressState
}

// New prepares a daemon; Run starts it.
func New(d Deps) (*Daemon, error) {
	prices, err := policy.NewPrices(d.Config.Policy)
	if err != nil {
		return nil, err
	}
	cal, err := policy.NewCalendar(d.Config.Policy.Availability)
	if err != nil {
		return nil, err
	}
	every, err := d.Config.Rewards.Every()
	if err != nil {
		return nil, err
	}
	pr, err := prover.New(d.Config.State.Dir+"/proofs", d.Version)
	if err != nil {
		return nil, err
	}
	recs, err := records.Open(d.Config.State.Dir)
	if err != nil {
		return nil, err
	}
	provider := d.Config.Key.Provider
	if provider == "" {
		provider = d.Chain.Address().String()
	}
	dm := &Daemon{
		cfg: d.Config, chain: d.Chain, q: NewQueries(d.Chain.Context()), gpus: d.GPUs, runner: d.Runner,
		m: d.Metrics, log: d.Log, version: d.Version, provider: provider, signer: d.Chain.Address().String(),
		prices: prices, calendar: cal, claimEvery: every,
		limits: policy.NewLimits(d.Config.Policy.MaxTempC, d.Config.Policy.MaxPowerW, d.Config.Policy.PreemptAfter),
		prover: pr, samples: pr, records: recs, health: &Health{},
		reg: registry.NewRegistry(), tick: make(chan struct{}, 1), auditRunner: d.Audits,
		host: d.Host, gate: newHostGate(hostRecoverAfter),
	}
	if dm.data, err = openJobData(d.Config, d.Chain.Context(), provider); err != nil {
		return nil, fmt.Errorf("job data: %w", err)
	}
	if dm.ing, err = dm.newIngress(); err != nil {
		return nil, err
	}
	return dm, nil
}

// Provider is the provider address the daemon acts for.
func (d *Daemon) Provider() string { return d.provider }

// Run runs until ctx ends or a part fails. Jobs keep running when the
// daemon stops: a restarted agent adopts them and proves on. Once the
// chain answered, the machine's offers are paused on the way out, so a
// stopped agent wins no jobs (a restarted one reopens them).
func (d *Daemon) Run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer d.prover.Close()

	errc := make(chan error, 16)
	var wg sync.WaitGroup
	run := func(name string, f func(context.Context) error) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := f(ctx); err != nil && ctx.Err() == nil {
				errc <- fmt.Errorf("%s: %w", name, err)
			}
		}()
	}
	defer wg.Wait()
	defer cancel()

	// The sampler starts here, before the chain is reached (startUp).
	if err := d.startUp(ctx, run); err != nil {
		return err
	}
	first := d.serve(ctx, run, errc)
	cancel()
	wg.Wait()
	d.jobs().Close()
	d.withdrawOffers(ctx)
	return first
}

// serve starts the parts that follow the chain and waits for the end: ctx
// done (nil) or the first part that failed.
func (d *Daemon) serve(ctx context.Context, run func(name string, f func(context.Context) error), errc <-chan error) error {
	from, err := d.resumeHeight(ctx)
	if err != nil {
		return err
	}

	servers, err := d.listen()
	if err != nil {
		return err
	}
	// The operator's mode and the machine's health are known before the
	// first offer is published.
	d.refreshMode()
	d.checkHost(ctx, time.Now())
	run("host checks", d.watchHost)
	// Audits have their own loop and transactions: nothing the worker
	// waits for (a proof batch, a lease) holds up an answer.
	d.auditor = d.newAuditor()
	run("auditor", d.auditor.Run)
	run("chain follower", func(ctx context.Context) error { return d.chain.FollowHeaders(ctx, from, d.onHeader) })
	run("worker", d.work)
	for _, s := range servers {
		run(s.name, s.serve)
	}
	d.log.Info("agent running", "provider", d.provider, "signer", d.signer, "gpus", len(d.devices),
		"gpu_backend", d.gpus.Name(), "runner", d.runner.Name(), "endpoint", d.cfg.Endpoint.Listen, "ingress", d.cfg.Ingress.Listen,
		"metrics", d.cfg.Metrics.Listen, "resume_height", from)

	select {
	case <-ctx.Done():
		return nil
	case err := <-errc:
		return err
	}
}

// loadChainState reads the parameters and checks the provider, waiting
// for the node when it is not up yet.
func (d *Daemon) loadChainState(ctx context.Context) error {
	var err error
	for wait := time.Second; ; wait = min(2*wait, 30*time.Second) {
		d.params, err = d.q.Params(ctx)
		if err == nil {
			break
		}
		d.log.Warn("chain not reachable yet", "err", err, "retry_in", wait)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
	}
	if _, found, err := d.q.Provider(ctx, d.provider); err != nil {
		return err
	} else if !found {
		return fmt.Errorf("provider %s is not registered: run `idlegpu-agent register` first", d.provider)
	}
	// Headers are kept as long as the chain keeps them for proofs.
	d.headers = prover.NewHeaders(d.params.Settlement.HeaderRetention() + d.params.Settlement.Epoch())
	return nil
}

// onHeader is called for every block, in order.
func (d *Daemon) onHeader(h chainclient.Header) error {
	d.headers.Add(proof.Header(h))
	d.m.ChainHeight.Set(float64(h.Height))
	d.health.block(h.Height, h.Time)
	d.auditor.Notify()
	select {
	case d.tick <- struct{}{}:
	default: // a step is pending already: it will see this block
	}
	return nil
}

// work runs one step per block (coalesced when steps are slower than blocks).
func (d *Daemon) work(ctx context.Context) error {
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-d.tick:
			d.step(ctx)
		}
	}
}

// step is the per-block work. Errors are logged and retried next block:
// one lease's trouble must not stop the others.
func (d *Daemon) step(ctx context.Context) {
	latest, ok := d.headers.Latest()
	if !ok {
		return
	}
	now := latest.Time
	d.refreshMode()
	if err := d.reconcile(ctx, now); err != nil {
		d.fail("leases", err)
		return
	}
	d.syncIngress(ctx)
	d.preemptHot(ctx)
	if err := d.prove(ctx, now); err != nil {
		d.fail("proofs", err)
	}
	d.keepOffers(ctx, now)
	if err := d.drain(ctx); err != nil {
		d.fail("drain", err)
	}
	if d.claimEvery > 0 && now.Sub(d.lastClaim) >= d.claimEvery {
		if err := d.claim(ctx); err != nil {
			d.fail("claim", err)
		} else {
			d.lastClaim = now
		}
	}
}

// keepOffers publishes the offers every offerEvery, when asked (a pass,
// a mode or health change), and as soon as why they must be paused
// changes. A failed publication is retried the next step.
func (d *Daemon) keepOffers(ctx context.Context, now time.Time) {
	reason := d.pauseReason()
	if !d.offersDue.Swap(false) && now.Sub(d.lastOffers) < offerEvery && reason == d.pausedBy {
		return
	}
	if err := d.publishOffers(ctx, now); err != nil {
		d.fail("offers", err)
		return
	}
	d.lastOffers, d.pausedBy = now, reason
	d.health.offers(reason)
	d.m.SetOffersPaused(reason != "")
}

func (d *Daemon) fail(part string, err error) {
	if errors.Is(err, context.Canceled) {
		return
	}
	d.health.failure(part, err)
	d.log.Warn("step failed", "part", part, "err", err)
}

// server is one of the daemon's HTTP listeners.
type server struct {
	name  string
	serve func(ctx context.Context) error
}

// listen opens the endpoint and metrics listeners before anything runs,
// so a port in use fails the start instead of a goroutine later.
func (d *Daemon) listen() ([]server, error) {
	// Renters sign for this provider on this chain (endpoint.Target).
	target := endpoint.Target{ChainID: d.chain.Context().ChainID, Provider: d.provider}
	ep := endpoint.NewServer(target, d.jobs(), d.jobs(), d.log, d.endpointOptions()...)
	mux := http.NewServeMux()
	mux.Handle("/", ep.Handler())
	var out []server
	add := func(name, addr string, srv *http.Server, lim endpoint.HTTPLimits) error {
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		ln = endpoint.Listener(ln, lim)
		if srv.TLSConfig != nil {
			ln = tls.NewListener(ln, srv.TLSConfig)
		}
		out = append(out, server{name: name, serve: func(ctx context.Context) error {
			go func() {
				<-ctx.Done()
				sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
				defer cancel()
				_ = srv.Shutdown(sctx)
			}()
			if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
				return err
			}
			return nil
		}})
		return nil
	}
	// The endpoint serves https with the certificate whose pin is on chain;
	// config validation allows plain HTTP on loopback only.
	var tlsCfg *tls.Config
	if e := d.cfg.Endpoint; e.TLS() {
		cert, err := tls.LoadX509KeyPair(e.TLSCert, e.TLSKey)
		if err != nil {
			return nil, fmt.Errorf("endpoint certificate: %w", err)
		}
		tlsCfg = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	}
	// Renters behind one NAT share a host's cap: the provider may raise it.
	lim := endpoint.HTTPLimits{MaxConns: d.cfg.Endpoint.MaxConns, MaxConnsPerHost: d.cfg.Endpoint.MaxConnsPerHost}
	srv := endpoint.NewHTTPServer(mux, lim)
	srv.TLSConfig = tlsCfg
	if err := add("endpoint", d.cfg.Endpoint.Listen, srv, lim); err != nil {
		return nil, err
	}
	if d.ing != nil {
		if err := add("ingress", d.cfg.Ingress.Listen, ingress.NewServer(d.ing.proxy, d.ing.cert), ingressConnLimits); err != nil {
			return nil, err
		}
	}
	if d.cfg.Metrics.Listen != "" {
		mm := http.NewServeMux()
		mm.Handle("/metrics", d.m.Handler())
		mm.Handle("/healthz", d.health.handler(d.params.Settlement.SampleInterval()))
		if err := add("metrics", d.cfg.Metrics.Listen, endpoint.NewHTTPServer(mm, endpoint.HTTPLimits{}), endpoint.HTTPLimits{}); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// poke asks the worker for a step without waiting for the next block.
func (d *Daemon) poke() {
	select {
	case d.tick <- struct{}{}:
	default:
	}
}

// leases is this step's reconciler, wired to the daemon's parts.
func (d *Daemon) leases() *reconciler.Reconciler {
	return &reconciler.Reconciler{
		Provider: d.provider, Signer: d.signer, Chain: d.q, Tx: d.chain, Prover: d.prover, Runner: d.runner,
		Leases: d.reg, Records: d.records, Settlement: d.params.Settlement, WorkDir: d.cfg.Runner.WorkDir,
		Track: d.startTracking, Finalise: d.jobs().FinaliseOutputs,
		Starting: d.jobs().Starting,
		Fail:     d.fail, Metrics: d.m, Log: d.log,
	}
}

// reconcile is the step's reconciliation: on the agent's first step the
// leases found are not new wins.
func (d *Daemon) reconcile(ctx context.Context, now time.Time) error {
	return d.leases().Reconcile(ctx, now, d.lastOffers.IsZero())
}

// stopJob stops a lease's job if it runs (reconciler.StopJob).
func (d *Daemon) stopJob(ctx context.Context, leaseID uint64, why string) error {
	return d.leases().StopJob(ctx, leaseID, why)
}

// jobs is the endpoint's side of the agent, wired to the daemon's parts
// on first use.
func (d *Daemon) jobs() *intake.Intake {
	d.inOnce.Do(func() {
		d.in = &intake.Intake{
			Provider: d.provider, Signer: d.signer, Chain: d.q, Tx: d.chain, Runner: d.runner,
			Leases: d.reg, Records: d.records, Prover: d.prover, Data: d.data, WorkDir: d.cfg.Runner.WorkDir,
			Acceptable: d.acceptable, EgressMbps: d.leaseEgressMbps, Poke: d.poke, Log: d.log,
		}
	})
	return d.in
}
