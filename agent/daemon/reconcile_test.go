package daemon

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/cosmos/cosmos-sdk/client"
	sdk "github.com/cosmos/cosmos-sdk/types"
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
	"github.com/idlegpu/idlegpu/chainclient"
	"github.com/idlegpu/idlegpu/endpoint"
	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
	offertypes "github.com/idlegpu/idlegpu/x/offer/types"
	settlementtypes "github.com/idlegpu/idlegpu/x/settlement/types"
)

// fakeAuction answers the lease and job queries from a map; a lease not in
// it is NotFound, as a pruned one is.
type fakeAuction struct {
	auctiontypes.QueryClient
	mu     sync.Mutex
	leases map[uint64]auctiontypes.Lease
}

func (f *fakeAuction) set(l auctiontypes.Lease) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.leases[l.Id] = l
}

func (f *fakeAuction) Lease(_ context.Context, req *auctiontypes.QueryLeaseRequest, _ ...grpc.CallOption) (*auctiontypes.QueryLeaseResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	l, ok := f.leases[req.Id]
	if !ok {
		return nil, status.Errorf(codes.NotFound, "lease %d not found", req.Id)
	}
	return &auctiontypes.QueryLeaseResponse{Lease: l}, nil
}

func (f *fakeAuction) ProviderLeases(_ context.Context, req *auctiontypes.QueryProviderLeasesRequest, _ ...grpc.CallOption) (*auctiontypes.QueryLeasesResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	res := &auctiontypes.QueryLeasesResponse{}
	for _, l := range f.leases {
		if l.Provider == req.Provider && l.Status == req.Status {
			res.Leases = append(res.Leases, l)
		}
	}
	return res, nil
}

func (f *fakeAuction) Job(_ context.Context, req *auctiontypes.QueryJobRequest, _ ...grpc.CallOption) (*auctiontypes.QueryJobResponse, error) {
	return &auctiontypes.QueryJobResponse{Job: auctiontypes.Job{Id: req.Id,
		Spec: auctiontypes.JobSpec{Workload: offertypes.WORKLOAD_INFERENCE, Image: "ghcr.io/acme/infer"}}}, nil
}

// fakeSettlement has no proof of any lease yet.
type fakeSettlement struct{ settlementtypes.QueryClient }

func (fakeSettlement) LeaseProgress(_ context.Context, req *settlementtypes.QueryLeaseProgressRequest, _ ...grpc.CallOption) (*settlementtypes.QueryLeaseProgressResponse, error) {
	return &settlementtypes.QueryLeaseProgressResponse{Progress: settlementtypes.LeaseProgress{LeaseId: req.LeaseId}}, nil
}

// fakeChain answers each transaction with the next of errs (nil once they
// run out) and keeps what was sent.
type fakeChain struct {
	mu   sync.Mutex
	errs []error
	sent []sdk.Msg
}

func (c *fakeChain) Submit(_ context.Context, msgs ...sdk.Msg) (*sdk.TxResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sent = append(c.sent, msgs...)
	var err error
	if len(c.errs) > 0 {
		err, c.errs = c.errs[0], c.errs[1:]
	}
	return &sdk.TxResponse{Height: 10, TxHash: "AB"}, err
}

func (c *fakeChain) starts() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, m := range c.sent {
		if _, ok := m.(*auctiontypes.MsgStartLease); ok {
			n++
		}
	}
	return n
}

func (c *fakeChain) HeightAt(context.Context, time.Time) (int64, error) {
	return 0, errors.New("no chain")
}
func (c *fakeChain) FollowHeaders(context.Context, int64, func(chainclient.Header) error) error {
	return errors.New("no chain")
}
func (c *fakeChain) Context() client.Context { return client.Context{} }

// fakeJob runs until stopped.
type fakeJob struct {
	once    sync.Once
	done    chan struct{}
	stopped bool
}

func (j *fakeJob) PIDs() []uint32               { return nil }
func (j *fakeJob) Done() <-chan struct{}        { return j.done }
func (j *fakeJob) Status() runner.Status        { return runner.Status{Running: !j.ended()} }
func (j *fakeJob) Logs() (io.ReadCloser, error) { return nil, io.EOF }
func (j *fakeJob) Stop(context.Context) error {
	j.once.Do(func() { j.stopped = true; close(j.done) })
	return nil
}
func (j *fakeJob) ended() bool {
	select {
	case <-j.done:
		return true
	default:
		return false
	}
}

// fakeRunner starts fakeJobs; nothing survives it, so Adopt finds none.
type fakeRunner struct{ jobs map[uint64]*fakeJob }

func (r *fakeRunner) Name() string { return "fake" }
func (r *fakeRunner) Start(_ context.Context, spec runner.Spec) (runner.Job, error) {
	j := &fakeJob{done: make(chan struct{})}
	r.jobs[spec.LeaseID] = j
	return j, nil
}
func (r *fakeRunner) Adopt(_ context.Context, spec runner.Spec) (runner.Job, error) {
	return nil, fmt.Errorf("lease %d: %w", spec.LeaseID, runner.ErrNotRunning)
}

const testProvider = "idle1provider"

// leaseDaemon is a daemon on fake chain answers, records and a prover in
// temporary directories, and one GPU.
func leaseDaemon(t *testing.T, r runner.Runner, tx *fakeChain) (*Daemon, *fakeAuction) {
	t.Helper()
	pr, err := prover.New(t.TempDir(), "test")
	require.NoError(t, err)
	t.Cleanup(func() { pr.Close() })
	recs, err := records.Open(t.TempDir())
	require.NoError(t, err)
	auction := &fakeAuction{leases: map[uint64]auctiontypes.Lease{}}
	d := &Daemon{
		cfg: config.Config{Policy: config.Default("").Policy}, chain: tx, runner: r,
		q: Queries{auction: auction, settlement: fakeSettlement{}},
		m: metrics.New(), log: slog.New(slog.NewTextHandler(io.Discard, nil)), health: &Health{},
		provider: testProvider, signer: testProvider,
		limits: policy.NewLimits(90, 0, 3), prover: pr, samples: pr, records: recs,
		devices: map[string]gpu.Info{"GPU-a": {UUID: "GPU-a", Model: "NVIDIA H100 80GB HBM3"}},
		reg:     registry.NewRegistry(), tick: make(chan struct{}, 1),
	}
	d.params.Settlement.EpochSeconds = 600
	d.params.Settlement.SampleIntervalSeconds = 5
	return d, auction
}

func pendingLease(id uint64) auctiontypes.Lease {
	return auctiontypes.Lease{Id: id, JobId: 100 + id, Provider: testProvider, Renter: "idle1renter",
		GpuUuids: []string{"GPU-a"}, DurationSeconds: 3600, Status: auctiontypes.LEASE_STATUS_PENDING}
}

// TestStartOfUnknownFateKeepsTheLease: a MsgStartLease not seen in a block
// in time may still land. The agent keeps the job and its record and lets
// the chain decide: a lease that became ACTIVE is proven, one still
// PENDING is started again, one that ended has its job stopped. Only the
// chain's refusal of the start drops the job at once.
func TestStartOfUnknownFateKeepsTheLease(t *testing.T) {
	notIncluded := fmt.Errorf("%w: AB after 30s", chainclient.ErrNotIncluded)
	refused := &chainclient.TxError{Codespace: "auction", Code: 7, Log: "lease is not pending"}
	now := time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		// then is the lease on chain after Accept returned; nil: unchanged.
		then      func(l *auctiontypes.Lease)
		startErrs []error
		// after reconcile
		tracked, started, stopped, kept bool
		starts                          int
	}{
		{name: "the start lands late: the lease is proven", startErrs: []error{notIncluded},
			then: func(l *auctiontypes.Lease) {
				l.Status, l.Start = auctiontypes.LEASE_STATUS_ACTIVE, now.Add(-time.Minute)
			},
			tracked: true, started: true, kept: true, starts: 1},
		{name: "the start was lost: it is sent again", startErrs: []error{notIncluded},
			started: true, kept: true, starts: 2},
		{name: "the start landed, then the renter closed: proven up to then", startErrs: []error{notIncluded},
			then: func(l *auctiontypes.Lease) {
				l.Status, l.Start, l.Reason = auctiontypes.LEASE_STATUS_CLOSING, now.Add(-time.Minute), "renter closed"
			},
			tracked: true, started: true, stopped: true, kept: true, starts: 1},
		{name: "the lease ended meanwhile: its job stops", startErrs: []error{notIncluded},
			then:    func(l *auctiontypes.Lease) { l.Status = auctiontypes.LEASE_STATUS_EXPIRED },
			stopped: true, kept: true, starts: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &fakeRunner{jobs: map[uint64]*fakeJob{}}
			tx := &fakeChain{errs: tc.startErrs}
			d, auction := leaseDaemon(t, r, tx)
			l := pendingLease(5)
			auction.set(l)

			_, err := d.jobs().Accept(context.Background(), endpoint.Lease{ID: l.Id, Renter: l.Renter},
				endpoint.Manifest{Command: []string{"serve"}})
			require.NoError(t, err)
			rec, ok := d.records.Get(l.Id)
			require.True(t, ok, "the start may still land: the record stays")
			require.False(t, rec.Started)
			require.True(t, rec.StartSent)
			require.NotNil(t, d.reg.Job(l.Id), "the job runs on")
			require.False(t, r.jobs[l.Id].ended())
			first := r.jobs[l.Id]
			_, err = d.jobs().Accept(context.Background(), endpoint.Lease{ID: l.Id, Renter: l.Renter},
				endpoint.Manifest{Command: []string{"serve"}})
			require.NoError(t, err, "the renter's retry")
			require.Same(t, first, r.jobs[l.Id], "no second job")

			if tc.then != nil {
				tc.then(&l)
				auction.set(l)
			}
			require.NoError(t, d.reconcile(context.Background(), now))
			st, _ := d.reg.Get(l.Id)
			require.Equal(t, tc.tracked, st.Tracked, "tracked for proving")
			require.Equal(t, tc.stopped, r.jobs[l.Id].ended(), "job stopped")
			require.Equal(t, tc.starts, tx.starts(), "MsgStartLease sent")
			rec, ok = d.records.Get(l.Id)
			require.Equal(t, tc.kept, ok, "record kept")
			require.Equal(t, tc.started, rec.Started, "record started")
		})
	}

	t.Run("a refused start stops the job and drops the record", func(t *testing.T) {
		r := &fakeRunner{jobs: map[uint64]*fakeJob{}}
		d, auction := leaseDaemon(t, r, &fakeChain{errs: []error{refused}})
		l := pendingLease(6)
		auction.set(l)
		_, err := d.jobs().Accept(context.Background(), endpoint.Lease{ID: l.Id, Renter: l.Renter},
			endpoint.Manifest{Command: []string{"serve"}})
		require.ErrorIs(t, err, refused)
		_, ok := d.records.Get(l.Id)
		require.False(t, ok)
		require.True(t, r.jobs[l.Id].stopped)
		require.Nil(t, d.reg.Job(l.Id))
	})

	t.Run("a record whose start may have landed stays without a job", func(t *testing.T) {
		// A restarted agent whose job is gone: were the record dropped and
		// the start land, nothing would close the ACTIVE lease.
		r := &fakeRunner{jobs: map[uint64]*fakeJob{}}
		tx := &fakeChain{}
		d, auction := leaseDaemon(t, r, tx)
		l := pendingLease(7)
		auction.set(l)
		require.NoError(t, d.records.Put(records.Record{LeaseID: l.Id, JobID: l.JobId, GPUs: l.GpuUuids, StartSent: true}))
		require.NoError(t, d.reconcile(context.Background(), now))
		_, ok := d.records.Get(l.Id)
		require.True(t, ok)
		require.Zero(t, tx.starts(), "no job to start the lease for")
		// A record of a start never sent goes, as before.
		require.NoError(t, d.records.Put(records.Record{LeaseID: l.Id, JobID: l.JobId, GPUs: l.GpuUuids}))
		require.NoError(t, d.reconcile(context.Background(), now))
		_, ok = d.records.Get(l.Id)
		require.False(t, ok)
	})
}
