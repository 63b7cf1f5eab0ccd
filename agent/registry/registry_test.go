package registry

import (
	"context"
	"io"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/agent/gpu"
	"github.com/idlegpu/idlegpu/agent/runner"
	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
	settlementtypes "github.com/idlegpu/idlegpu/x/settlement/types"
)

func activeLease(id uint64, tier auctiontypes.Tier, gpus ...string) auctiontypes.Lease {
	return auctiontypes.Lease{Id: id, GpuUuids: gpus, Tier: tier, Status: auctiontypes.LEASE_STATUS_ACTIVE}
}

// TestRegistryKeepsStateUntilNothingIsLeft: a lease's state lives while
// any part of it does (listed, a job, proving state), and copies handed
// out do not change it.
func TestRegistryKeepsStateUntilNothingIsLeft(t *testing.T) {
	r := NewRegistry()
	fresh, none := r.List([]auctiontypes.Lease{activeLease(1, auctiontypes.TIER_GOLD, "GPU-a"), activeLease(2, auctiontypes.TIER_BRONZE, "GPU-b")})
	require.True(t, none, "nothing was listed before")
	require.Len(t, fresh, 2)

	r.SetJob(1, pidJob{pids: []uint32{7}})
	r.Update(1, func(l *Lease) { l.Refused = map[uint64]bool{3: true} })
	got, ok := r.Get(1)
	require.True(t, ok)
	got.Refused[4] = true
	again, _ := r.Get(1)
	require.Equal(t, map[uint64]bool{3: true}, again.Refused, "a copy shares no map with the registry")

	fresh, none = r.List([]auctiontypes.Lease{activeLease(2, auctiontypes.TIER_BRONZE, "GPU-b"), activeLease(3, auctiontypes.TIER_GOLD, "GPU-c")})
	require.False(t, none)
	require.Equal(t, []uint64{3}, []uint64{fresh[0].Id}, "only lease 3 is new")
	one, ok := r.Get(1)
	require.True(t, ok, "no longer listed, but its job and refusals stay")
	require.False(t, one.Listed)
	require.NotNil(t, one.Job)

	require.True(t, r.QueuePreempt("GPU-b", "hot"))
	require.False(t, r.QueuePreempt("GPU-b", "hot"), "queued once")
	require.False(t, r.QueuePreempt("GPU-c", "hot"), "GOLD work is not preempted")
	require.Equal(t, map[uint64]string{2: "hot"}, r.TakePreempts())
	require.Empty(t, r.TakePreempts())

	r.List(nil)
	ids := func() []uint64 {
		var out []uint64
		for _, l := range r.Snapshot() {
			out = append(out, l.ID)
		}
		return out
	}
	require.Equal(t, []uint64{1}, ids(), "states with nothing left are dropped")
	r.Remove(1)
	require.Empty(t, ids())
	_, ok = r.Get(1)
	require.False(t, ok)
}

// TestRegistryConcurrent runs the worker's, the sampler's and the
// endpoint's calls at once: run with -race.
func TestRegistryConcurrent(t *testing.T) {
	r := NewRegistry()
	r.SetRecentBound(8)
	var wg sync.WaitGroup
	const rounds = 200
	wg.Add(4)
	go func() { // the worker
		defer wg.Done()
		for i := range rounds {
			id := uint64(i%5 + 1)
			r.List([]auctiontypes.Lease{activeLease(id, auctiontypes.TIER_BRONZE, "GPU-a")})
			r.SetJob(id, pidJob{pids: []uint32{uint32(i)}})
			r.Track(id, func(l *Lease, kept []SampleTick) []settlementtypes.Sample { return nil })
			r.Update(id, func(l *Lease) { l.NextEpoch, l.NextKnown = uint64(i), true })
			r.TakePreempts()
			if i%7 == 0 {
				r.Remove(id)
			}
		}
	}()
	go func() { // the sampler
		defer wg.Done()
		for range rounds {
			r.QueuePreempt("GPU-a", "hot")
			r.AddTick(SampleTick{ByGPU: map[string]gpu.Reading{}}, func(l *Lease) []settlementtypes.Sample {
				l.OnGPUs = true
				return nil
			})
		}
	}()
	go func() { // the endpoint
		defer wg.Done()
		for i := range rounds {
			_ = r.Job(uint64(i%5 + 1))
			for _, l := range r.Snapshot() {
				_ = l.Provable()
			}
		}
	}()
	go func() { // the backfill ring's readers
		defer wg.Done()
		for range rounds {
			assert.LessOrEqual(t, len(r.Kept()), 8)
		}
	}()
	wg.Wait()
	require.Len(t, r.Kept(), 8, "the ring is bounded")
}

// pidJob is a job whose processes are known and that never ends.
type pidJob struct{ pids []uint32 }

func (j pidJob) PIDs() []uint32                 { return j.pids }
func (j pidJob) Done() <-chan struct{}          { return nil }
func (j pidJob) Status() runner.Status          { return runner.Status{} }
func (j pidJob) Logs() (io.ReadCloser, error)   { return nil, io.EOF }
func (j pidJob) Stop(ctx context.Context) error { return nil }
