package daemon

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/agent/gpu"
	"github.com/idlegpu/idlegpu/agent/metrics"
	"github.com/idlegpu/idlegpu/agent/policy"
	"github.com/idlegpu/idlegpu/agent/prover"
	"github.com/idlegpu/idlegpu/agent/registry"
	"github.com/idlegpu/idlegpu/agent/runner"
	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
)

// pidJob is a running job with fixed PIDs.
type pidJob struct{ pids []uint32 }

func (j pidJob) PIDs() []uint32                 { return j.pids }
func (j pidJob) Done() <-chan struct{}          { return nil }
func (j pidJob) Status() runner.Status          { return runner.Status{} }
func (j pidJob) Logs() (io.ReadCloser, error)   { return nil, io.EOF }
func (j pidJob) Stop(ctx context.Context) error { return nil }

// TestBackfillFromLeaseStart: the agent sees a lease ACTIVE a block or two
// after its start; the ticks taken between (the job on its GPUs already)
// land in the first epoch, once each, and ticks before the start do not.
func TestBackfillFromLeaseStart(t *testing.T) {
	pr, err := prover.New(t.TempDir(), "test")
	require.NoError(t, err)
	defer pr.Close()
	d := &Daemon{
		m: metrics.New(), log: slog.New(slog.NewTextHandler(io.Discard, nil)), health: &Health{},
		limits: policy.NewLimits(90, 0, 3), prover: pr, samples: pr, reg: registry.NewRegistry(),
	}
	l := testLease()
	cl := auctiontypes.Lease{Id: l.ID, GpuUuids: l.GPUs, Start: l.Start, DurationSeconds: l.DurationSeconds,
		Status: auctiontypes.LEASE_STATUS_ACTIVE}
	d.reg.List([]auctiontypes.Lease{cl})
	d.reg.SetJob(l.ID, pidJob{pids: []uint32{42}})
	require.NoError(t, pr.Track(l))

	jobOn := map[string]bool{}
	sample := func(at time.Time) {
		var rs []gpu.Reading
		for i, u := range append(l.GPUs, "GPU-other") {
			pids := []uint32{uint32(100 + i)}
			if jobOn[u] {
				pids = append(pids, 42)
			}
			rs = append(rs, gpu.Reading{UUID: u, Time: at, UtilBps: 9000, EnergyMJ: uint64(at.Unix()) * 1000, TempC: 60, PIDs: pids})
		}
		d.onSample(at, rs)
	}
	// Before the agent saw the lease ACTIVE: at +0 the job is on no GPU
	// yet, at +1 on one of its two, from +2 on both.
	sample(t0.Add(-2 * time.Second))
	sample(t0.Add(-1 * time.Second))
	sample(t0)
	jobOn["GPU-a"] = true
	sample(t0.Add(1 * time.Second))
	jobOn["GPU-b"] = true
	sample(t0.Add(2 * time.Second))
	got, _ := pr.Samples(l.ID, 0)
	require.Empty(t, got, "an untracked lease records nothing")

	d.startTracking(cl)
	sample(t0.Add(3 * time.Second))

	got, _ = pr.Samples(l.ID, 0)
	require.Len(t, got, 2*2, "ticks at +2 (backfilled: the first with the job on both GPUs) and +3 (live), both leased GPUs")
	seen := map[[2]any]bool{}
	for _, s := range got {
		require.Contains(t, l.GPUs, s.GpuUuid)
		require.GreaterOrEqual(t, s.TimestampMs, t0.Add(2*time.Second).UnixMilli())
		require.Equal(t, uint32(1), s.Procs, "only the job's process counts")
		key := [2]any{s.GpuUuid, s.TimestampMs}
		require.False(t, seen[key], "tick recorded twice")
		seen[key] = true
	}

	// Once on its GPUs, every tick counts: a job that leaves a GPU shows.
	jobOn["GPU-b"] = false
	sample(t0.Add(4 * time.Second))
	got, _ = pr.Samples(l.ID, 0)
	require.Len(t, got, 2*3)
	for _, s := range got[len(got)-2:] {
		require.Equal(t, t0.Add(4*time.Second).UnixMilli(), s.TimestampMs)
		require.Equal(t, map[string]uint32{"GPU-a": 1, "GPU-b": 0}[s.GpuUuid], s.Procs, s.GpuUuid)
	}

	for i := 0; i < registry.RecentTicks+10; i++ {
		sample(t0.Add(time.Duration(5+i) * time.Second))
	}
	require.Len(t, d.reg.Kept(), registry.RecentTicks, "the kept ticks are bounded")
}
