package reconciler

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/idlegpu/idlegpu/agent/metrics"
	"github.com/idlegpu/idlegpu/agent/prover"
	"github.com/idlegpu/idlegpu/agent/records"
	"github.com/idlegpu/idlegpu/agent/registry"
	"github.com/idlegpu/idlegpu/agent/runner"
	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
	settlementtypes "github.com/idlegpu/idlegpu/x/settlement/types"
)

// leaseBook answers the reconciler's chain reads from a map; a lease not
// in it is NotFound, as a pruned one is.
type leaseBook struct {
	mu     sync.Mutex
	leases map[uint64]auctiontypes.Lease
}

func (b *leaseBook) set(l auctiontypes.Lease) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.leases[l.Id] = l
}

func (b *leaseBook) Lease(_ context.Context, id uint64) (auctiontypes.Lease, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	l, ok := b.leases[id]
	if !ok {
		return auctiontypes.Lease{}, status.Errorf(codes.NotFound, "lease %d not found", id)
	}
	return l, nil
}

func (b *leaseBook) ProviderLeases(_ context.Context, provider string, st auctiontypes.LeaseStatus) ([]auctiontypes.Lease, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []auctiontypes.Lease
	for _, l := range b.leases {
		if l.Provider == provider && l.Status == st {
			out = append(out, l)
		}
	}
	return out, nil
}

func (*leaseBook) Progress(context.Context, uint64) (settlementtypes.LeaseProgress, error) {
	return settlementtypes.LeaseProgress{}, nil
}

const testProvider = "idle1provider"

// testReconciler is a reconciler on a lease book, records and a prover in
// temporary directories. It sends no transactions: Tx is nil, and a test
// that needs one fails loudly.
func testReconciler(t *testing.T, r runner.Runner) (*Reconciler, *leaseBook) {
	t.Helper()
	pr, err := prover.New(t.TempDir(), "test")
	require.NoError(t, err)
	t.Cleanup(func() { pr.Close() })
	recs, err := records.Open(t.TempDir())
	require.NoError(t, err)
	book := &leaseBook{leases: map[uint64]auctiontypes.Lease{}}
	rc := &Reconciler{
		Provider: testProvider, Signer: testProvider, Chain: book, Prover: pr, Runner: r,
		Leases: registry.NewRegistry(), Records: recs, WorkDir: t.TempDir(),
		Track:    func(auctiontypes.Lease) {},
		Finalise: func(uint64, time.Time) error { return nil },
		Starting: func(uint64) bool { return false },
		Fail:     func(part string, err error) { t.Errorf("%s: %v", part, err) },
		Metrics:  metrics.New(), Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
	rc.Settlement.EpochSeconds, rc.Settlement.SampleIntervalSeconds = 600, 5
	return rc, book
}

func pendingLease(id uint64) auctiontypes.Lease {
	return auctiontypes.Lease{Id: id, JobId: 100 + id, Provider: testProvider, Renter: "idle1renter",
		GpuUuids: []string{"GPU-a"}, DurationSeconds: 3600, Status: auctiontypes.LEASE_STATUS_PENDING}
}

// TestRestartStopsJobsOfEndedLeases: leases that ended while the agent was
// down (FAILED, or pruned from the chain) leave jobs no later step would
// stop; the restarted agent adopts and stops them, real process groups.
func TestRestartStopsJobsOfEndedLeases(t *testing.T) {
	p, err := runner.NewProcess(t.TempDir())
	require.NoError(t, err)
	p.Grace = 200 * time.Millisecond
	r, auction := testReconciler(t, p)

	failed, pruned, live := pendingLease(11), pendingLease(12), pendingLease(13)
	failed.Status, live.Status = auctiontypes.LEASE_STATUS_FAILED, auctiontypes.LEASE_STATUS_ACTIVE
	auction.set(failed)
	auction.set(live)
	pids := map[uint64]uint32{}
	for _, l := range []auctiontypes.Lease{failed, pruned, live} {
		// The earlier run's job handles are not the daemon's: it adopts.
		j, err := p.Start(context.Background(), runner.Spec{LeaseID: l.Id, GPUs: l.GpuUuids, Command: []string{"sleep", "60"}})
		require.NoError(t, err)
		t.Cleanup(func() { _ = j.Stop(context.Background()) })
		require.Eventually(t, func() bool { return len(j.PIDs()) == 1 }, 5*time.Second, 10*time.Millisecond)
		pids[l.Id] = j.PIDs()[0]
		require.NoError(t, r.Records.Put(records.Record{LeaseID: l.Id, JobID: l.JobId, GPUs: l.GpuUuids, Runner: "process", Started: true}))
	}

	require.NoError(t, r.Recover(context.Background()))
	for _, id := range []uint64{failed.Id, pruned.Id} {
		require.Eventually(t, func() bool { return syscall.Kill(int(pids[id]), 0) != nil }, 5*time.Second, 20*time.Millisecond,
			"the job of ended lease %d still runs", id)
	}
	require.NoError(t, syscall.Kill(int(pids[live.Id]), 0), "the live lease's job runs on")
	require.NotNil(t, r.Leases.Job(live.Id))

	rec, ok := r.Records.Get(failed.Id)
	require.True(t, ok, "an ended lease's record stays a while (samples, logs)")
	require.False(t, rec.Ended.IsZero())
	require.Equal(t, "LEASE_STATUS_FAILED", rec.Status)
	_, ok = r.Records.Get(pruned.Id)
	require.False(t, ok, "a lease the chain no longer has leaves no record")
}

// TestRetireStopsAJobItDidNotAdopt: a lease's end stops its job even when
// this run holds no handle on it.
func TestRetireStopsAJobItDidNotAdopt(t *testing.T) {
	p, err := runner.NewProcess(t.TempDir())
	require.NoError(t, err)
	p.Grace = 200 * time.Millisecond
	r, auction := testReconciler(t, p)
	l := pendingLease(21)
	l.Status = auctiontypes.LEASE_STATUS_FAILED
	auction.set(l)
	j, err := p.Start(context.Background(), runner.Spec{LeaseID: l.Id, GPUs: l.GpuUuids, Command: []string{"sleep", "60"}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = j.Stop(context.Background()) })
	require.Eventually(t, func() bool { return len(j.PIDs()) == 1 }, 5*time.Second, 10*time.Millisecond)
	pid := j.PIDs()[0]
	rec := records.Record{LeaseID: l.Id, JobID: l.JobId, GPUs: l.GpuUuids, Runner: "process", Started: true}
	require.NoError(t, r.Records.Put(rec))

	require.NoError(t, r.Retire(context.Background(), rec, time.Now()))
	require.Eventually(t, func() bool { return syscall.Kill(int(pid), 0) != nil }, 5*time.Second, 20*time.Millisecond)
}
