package daemon

import (
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/agent/gpu"
	"github.com/idlegpu/idlegpu/agent/metrics"
	"github.com/idlegpu/idlegpu/agent/policy"
	"github.com/idlegpu/idlegpu/agent/registry"
	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
	settlementtypes "github.com/idlegpu/idlegpu/x/settlement/types"
)

func activeLease(id uint64, tier auctiontypes.Tier, gpus ...string) auctiontypes.Lease {
	return auctiontypes.Lease{Id: id, GpuUuids: gpus, Tier: tier, Status: auctiontypes.LEASE_STATUS_ACTIVE}
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
		limits: policy.NewLimits(90, 0, 3), samples: w, reg: registry.NewRegistry(), tick: make(chan struct{}, 1),
	}
	cl := activeLease(9, auctiontypes.TIER_GOLD, "GPU-a")
	d.reg.List([]auctiontypes.Lease{cl})
	d.reg.SetJob(cl.Id, pidJob{pids: []uint32{42}})
	d.reg.Track(cl.Id, nil)

	done := make(chan struct{})
	go func() {
		defer close(done)
		d.onSample(t0, []gpu.Reading{{UUID: "GPU-a", Time: t0, TempC: 60, PIDs: []uint32{42}}})
	}()
	require.Equal(t, cl.Id, <-w.entered, "the write is under way")

	// The sampler is inside the write now: the lock must be free.
	free := make(chan struct{})
	go func() { d.reg.Snapshot(); close(free) }()
	select {
	case <-free:
	case <-time.After(5 * time.Second):
		t.Fatal("the registry's lock is held across a sample-log write")
	}
	st, ok := d.reg.Get(cl.Id)
	require.True(t, ok)
	require.True(t, st.OnGPUs, "the tick was decided before the write")
	d.reg.Update(cl.Id, func(l *registry.Lease) { l.Exited = true })
	require.Len(t, d.reg.Kept(), 1)

	close(w.release)
	<-done
	require.Equal(t, map[uint64]int{cl.Id: 1}, w.got)
}
