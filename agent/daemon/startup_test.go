package daemon

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/idlegpu/idlegpu/agent/config"
	"github.com/idlegpu/idlegpu/agent/gpu"
	"github.com/idlegpu/idlegpu/agent/metrics"
	"github.com/idlegpu/idlegpu/agent/policy"
	"github.com/idlegpu/idlegpu/agent/prover"
	"github.com/idlegpu/idlegpu/agent/records"
	"github.com/idlegpu/idlegpu/agent/registry"
	"github.com/idlegpu/idlegpu/agent/runner"
	"github.com/idlegpu/idlegpu/agent/state"
	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
	offertypes "github.com/idlegpu/idlegpu/x/offer/types"
	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
	settlementtypes "github.com/idlegpu/idlegpu/x/settlement/types"
)

// oneGPU is a GPU backend with GPU-a, the job's pid 42 on it.
type oneGPU struct{}

func (oneGPU) Name() string { return "fake" }
func (oneGPU) Devices(context.Context) ([]gpu.Info, error) {
	return []gpu.Info{{UUID: "GPU-a", Model: "NVIDIA H100 80GB HBM3"}}, nil
}
func (oneGPU) Read(_ context.Context, uuid string) (gpu.Reading, error) {
	now := time.Now()
	return gpu.Reading{UUID: uuid, Time: now, UtilBps: 9000, EnergyMJ: uint64(now.UnixMilli()), TempC: 60, PIDs: []uint32{42}}, nil
}
func (oneGPU) Close() error { return nil }

// downChain answers nothing until up is set, as a node in an outage.
type downChain struct {
	up     atomic.Bool
	params settlementtypes.Params
}

func (c *downChain) unavailable() error { return status.Error(codes.Unavailable, "connection refused") }

type downSettlement struct {
	fakeSettlement
	c *downChain
}

func (s downSettlement) Params(context.Context, *settlementtypes.QueryParamsRequest, ...grpc.CallOption) (*settlementtypes.QueryParamsResponse, error) {
	if !s.c.up.Load() {
		return nil, s.c.unavailable()
	}
	return &settlementtypes.QueryParamsResponse{Params: s.c.params}, nil
}

type downAuction struct {
	*fakeAuction
	c *downChain
}

func (a downAuction) Params(context.Context, *auctiontypes.QueryParamsRequest, ...grpc.CallOption) (*auctiontypes.QueryParamsResponse, error) {
	if !a.c.up.Load() {
		return nil, a.c.unavailable()
	}
	return &auctiontypes.QueryParamsResponse{Params: auctiontypes.DefaultParams()}, nil
}

type downOffer struct {
	offertypes.QueryClient
	c *downChain
}

func (o downOffer) Params(context.Context, *offertypes.QueryParamsRequest, ...grpc.CallOption) (*offertypes.QueryParamsResponse, error) {
	if !o.c.up.Load() {
		return nil, o.c.unavailable()
	}
	return &offertypes.QueryParamsResponse{Params: offertypes.DefaultParams()}, nil
}

type downProvider struct {
	providertypes.QueryClient
	c *downChain
}

func (p downProvider) Provider(_ context.Context, req *providertypes.QueryProviderRequest, _ ...grpc.CallOption) (*providertypes.QueryProviderResponse, error) {
	if !p.c.up.Load() {
		return nil, p.c.unavailable()
	}
	return &providertypes.QueryProviderResponse{Provider: providertypes.Provider{Operator: req.Operator}}, nil
}

// adoptRunner finds every recorded job still running, with pid 42.
type adoptRunner struct{ fakeRunner }

func (adoptRunner) Adopt(context.Context, runner.Spec) (runner.Job, error) {
	return pidJob{pids: []uint32{42}}, nil
}

// TestSamplingThroughAnOutageAtStart: an agent restarted while its node is
// unreachable samples from the start, on the grid its last run saved, and
// the ticks taken before the chain answered land in the running lease's
// proof once the chain is back and the lease is tracked, each once.
func TestSamplingThroughAnOutageAtStart(t *testing.T) {
	dir := t.TempDir()
	params := settlementtypes.DefaultParams()
	params.EpochSeconds, params.SampleIntervalSeconds = 600, 1
	require.NoError(t, state.SaveJSON(filepath.Join(dir, paramsFile), params), "saved by the last run")

	recs, err := records.Open(dir)
	require.NoError(t, err)
	start := time.Now().Add(-time.Minute).Truncate(time.Second)
	l := auctiontypes.Lease{Id: 1, JobId: 101, Provider: testProvider, Renter: "idle1renter", GpuUuids: []string{"GPU-a"},
		Start: start, DurationSeconds: 3600, Status: auctiontypes.LEASE_STATUS_ACTIVE}
	require.NoError(t, recs.Put(records.Record{LeaseID: 1, JobID: 101, GPUs: l.GpuUuids, ImageDigest: "sha256:00", Started: true}))
	pr, err := prover.New(filepath.Join(dir, "proofs"), "test")
	require.NoError(t, err)
	defer pr.Close()

	c := &downChain{params: params}
	auction := &fakeAuction{leases: map[uint64]auctiontypes.Lease{1: l}}
	d := &Daemon{
		cfg:    config.Config{Policy: config.Default("").Policy, State: config.State{Dir: dir}},
		chain:  &fakeChain{},
		runner: &adoptRunner{fakeRunner{jobs: map[uint64]*fakeJob{}}}, gpus: oneGPU{},
		q: Queries{auction: downAuction{auction, c}, settlement: downSettlement{c: c},
			offer: downOffer{c: c}, provider: downProvider{c: c}},
		m: metrics.New(), log: slog.New(slog.NewTextHandler(io.Discard, nil)), health: &Health{},
		provider: testProvider, signer: testProvider,
		limits: policy.NewLimits(90, 0, 3), prover: pr, samples: pr, records: recs,
		reg: registry.NewRegistry(), tick: make(chan struct{}, 1),
	}

	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	run := func(name string, f func(context.Context) error) {
		wg.Add(1)
		go func() { defer wg.Done(); _ = f(ctx) }()
	}
	up := make(chan error, 1)
	go func() { up <- d.startUp(ctx, run) }()

	ticks := func() int { return len(d.reg.Kept()) }
	require.Eventually(t, func() bool { return ticks() >= 3 }, 10*time.Second, 50*time.Millisecond,
		"the GPUs are sampled while the chain is unreachable")
	select {
	case err := <-up:
		t.Fatalf("start-up went on without the chain: %v", err)
	default:
	}
	first := d.reg.Kept()[0]
	require.Equal(t, 2*600, d.reg.RecentBound(), "the ring holds two epochs of ticks")

	c.up.Store(true) // the node is back (the start-up retries after a second)
	require.NoError(t, <-up)
	require.NotNil(t, d.reg.Job(1), "the recorded job is adopted")
	d.reg.List([]auctiontypes.Lease{l})
	// The first block shows the lease ACTIVE: it is tracked and backfilled.
	require.NoError(t, d.leases().KeepActive(ctx, l, time.Now()))
	require.Eventually(t, func() bool { return ticks() >= 6 }, 10*time.Second, 50*time.Millisecond) // and live ticks on

	pl, _ := pr.Lease(1)
	k, ok := pl.EpochOf(first.ByGPU["GPU-a"].Time)
	require.True(t, ok)
	var got []settlementtypes.Sample
	for e := k; e <= k+1; e++ {
		s, _ := pr.Samples(1, e)
		got = append(got, s...)
	}
	seen := map[int64]bool{}
	for _, s := range got {
		require.False(t, seen[s.TimestampMs], "tick %d recorded twice", s.TimestampMs)
		seen[s.TimestampMs] = true
	}
	require.True(t, seen[first.ByGPU["GPU-a"].Time.UnixMilli()], "the first tick of the outage is in the proof")
	require.GreaterOrEqual(t, len(got), 6, "every tick since start-up, outage and after")

	var saved settlementtypes.Params
	found, err := state.LoadJSON(filepath.Join(dir, paramsFile), &saved)
	require.NoError(t, err)
	require.True(t, found)
	require.Equal(t, params.SampleIntervalSeconds, saved.SampleIntervalSeconds)
}
