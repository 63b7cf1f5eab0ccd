package daemon

import (
	"io"
	"log/slog"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/agent/gpu"
	"github.com/idlegpu/idlegpu/agent/metrics"
	"github.com/idlegpu/idlegpu/agent/policy"
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
	r := newRegistry()
	fresh, none := r.list([]auctiontypes.Lease{activeLease(1, auctiontypes.TIER_GOLD, "GPU-a"), activeLease(2, auctiontypes.TIER_BRONZE, "GPU-b")})
	require.True(t, none, "nothing was listed before")
	require.Len(t, fresh, 2)

	r.setJob(1, pidJob{pids: []uint32{7}})
	r.update(1, func(l *lease) { l.refused = map[uint64]bool{3: true} })
	got, ok := r.get(1)
	require.True(t, ok)
	got.refused[4] = true
	again, _ := r.get(1)
	require.Equal(t, map[uint64]bool{3: true}, again.refused, "a copy shares no map with the registry")

	fresh, none = r.list([]auctiontypes.Lease{activeLease(2, auctiontypes.TIER_BRONZE, "GPU-b"), activeLease(3, auctiontypes.TIER_GOLD, "GPU-c")})
	require.False(t, none)
	require.Equal(t, []uint64{3}, []uint64{fresh[0].Id}, "only lease 3 is new")
	one, ok := r.get(1)
	require.True(t, ok, "no longer listed, but its job and refusals stay")
	require.False(t, one.listed)
	require.NotNil(t, one.job)

	require.True(t, r.queuePreempt("GPU-b", "hot"))
	require.False(t, r.queuePreempt("GPU-b", "hot"), "queued once")
	require.False(t, r.queuePreempt("GPU-c", "hot"), "GOLD work is not preempted")
	require.Equal(t, map[uint64]string{2: "hot"}, r.takePreempts())
	require.Empty(t, r.takePreempts())

	r.list(nil)
	ids := func() []uint64 {
		var out []uint64
		for _, l := range r.snapshot() {
			out = append(out, l.id)
		}
		return out
	}
	require.Equal(t, []uint64{1}, ids(), "states with nothing left are dropped")
	r.remove(1)
	require.Empty(t, ids())
	_, ok = r.get(1)
	require.False(t, ok)
}

// TestRegistryConcurrent runs the worker's, the sampler's and the
// endpoint's calls at once: run with -race.
func TestRegistryConcurrent(t *testing.T) {
	r := newRegistry()
	r.setRecentBound(8)
	var wg sync.WaitGroup
	const rounds = 200
	wg.Add(4)
	go func() { // the worker
		defer wg.Done()
		for i := range rounds {
			id := uint64(i%5 + 1)
			r.list([]auctiontypes.Lease{activeLease(id, auctiontypes.TIER_BRONZE, "GPU-a")})
			r.setJob(id, pidJob{pids: []uint32{uint32(i)}})
			r.track(id, func(l *lease, kept []sampleTick) []settlementtypes.Sample { return nil })
			r.update(id, func(l *lease) { l.nextEpoch, l.nextKnown = uint64(i), true })
			r.takePreempts()
			if i%7 == 0 {
				r.remove(id)
			}
		}
	}()
	go func() { // the sampler
		defer wg.Done()
		for range rounds {
			r.queuePreempt("GPU-a", "hot")
			r.addTick(sampleTick{byGPU: map[string]gpu.Reading{}}, func(l *lease) []settlementtypes.Sample {
				l.onGPUs = true
				return nil
			})
		}
	}()
	go func() { // the endpoint
		defer wg.Done()
		for i := range rounds {
			_ = r.job(uint64(i%5 + 1))
			for _, l := range r.snapshot() {
				_ = l.provable()
			}
		}
	}()
	go func() { // the backfill ring's readers
		defer wg.Done()
		for range rounds {
			assert.LessOrEqual(t, len(r.kept()), 8)
		}
	}()
	wg.Wait()
	require.Len(t, r.kept(), 8, "the ring is bounded")
}

// blockingWriter is a sample log whose first write blocks until released,
// as an fsync on a slow disk does.
type blockingWriter struct {
	entered chan uint64
	release chan struct{}
	mu      sync.Mutex
	got     map[uint64]int
}

func (w *blockingWriter) Record(id uint64, samples []settlementtypes.Sample) error {
	w.entered <- id
	<-w.release
	w.mu.Lock()
	defer w.mu.Unlock()
	w.got[id] += len(samples)
	return nil
}

// TestSampleWriteHoldsNoRegistryLock: while a tick's samples are being
// written, the registry stays free for the worker and the endpoint.
func TestSampleWriteHoldsNoRegistryLock(t *testing.T) {
	w := &blockingWriter{entered: make(chan uint64, 1), release: make(chan struct{}), got: map[uint64]int{}}
	d := &Daemon{
		m: metrics.New(), log: slog.New(slog.NewTextHandler(io.Discard, nil)), health: &Health{},
		limits: policy.NewLimits(90, 0, 3), samples: w, reg: newRegistry(), tick: make(chan struct{}, 1),
	}
	cl := activeLease(9, auctiontypes.TIER_GOLD, "GPU-a")
	d.reg.list([]auctiontypes.Lease{cl})
	d.reg.setJob(cl.Id, pidJob{pids: []uint32{42}})
	d.reg.track(cl.Id, nil)

	done := make(chan struct{})
	go func() {
		defer close(done)
		d.onSample(t0, []gpu.Reading{{UUID: "GPU-a", Time: t0, TempC: 60, PIDs: []uint32{42}}})
	}()
	require.Equal(t, cl.Id, <-w.entered, "the write is under way")

	// The sampler is inside the write now: the lock must be free.
	require.True(t, d.reg.mu.TryLock(), "the registry's lock is held across a sample-log write")
	d.reg.mu.Unlock()
	st, ok := d.reg.get(cl.Id)
	require.True(t, ok)
	require.True(t, st.onGPUs, "the tick was decided before the write")
	d.reg.update(cl.Id, func(l *lease) { l.exited = true })
	require.Len(t, d.reg.kept(), 1)

	close(w.release)
	<-done
	require.Equal(t, map[uint64]int{cl.Id: 1}, w.got)
}
