//go:build cgo

package gpu

import (
	"context"
	"sync"
	"testing"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/dgxh100"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/server"
	"github.com/stretchr/testify/require"
)

// eventQueue is a mock NVML event set: Wait pops queued events and
// answers ERROR_TIMEOUT when none is pending, as the driver does.
type eventQueue struct {
	mu       sync.Mutex
	events   []nvml.EventData
	timeouts []uint32 // the timeout of every Wait
	freed    int
}

func (q *eventQueue) push(dev nvml.Device, eventType uint64, xid uint64) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.events = append(q.events, nvml.EventData{Device: dev, EventType: eventType, EventData: xid})
}

func (q *eventQueue) set() *mock.EventSet {
	return &mock.EventSet{
		WaitFunc: func(timeout uint32) (nvml.EventData, nvml.Return) {
			q.mu.Lock()
			defer q.mu.Unlock()
			q.timeouts = append(q.timeouts, timeout)
			if len(q.events) == 0 {
				return nvml.EventData{}, nvml.ERROR_TIMEOUT
			}
			e := q.events[0]
			q.events = q.events[1:]
			return e, nvml.SUCCESS
		},
		FreeFunc: func() nvml.Return { q.freed++; return nvml.SUCCESS },
	}
}

// withEvents makes s hand out q's event set and records each GPU's
// registration mask; GPUs in unsupported refuse with ERROR_NOT_SUPPORTED.
func withEvents(s *server.Server, devs []*server.Device, q *eventQueue, unsupported ...int) map[int]uint64 {
	set := q.set()
	s.EventSetCreateFunc = func() (nvml.EventSet, nvml.Return) { return set, nvml.SUCCESS }
	masks := map[int]uint64{}
	for i, d := range devs {
		d.RegisterEventsFunc = func(mask uint64, es nvml.EventSet) nvml.Return {
			for _, u := range unsupported {
				if u == i {
					return nvml.ERROR_NOT_SUPPORTED
				}
			}
			if es != set {
				return nvml.ERROR_INVALID_ARGUMENT
			}
			masks[i] = mask
			return nvml.SUCCESS
		}
	}
	return masks
}

func TestNVMLXIDCounting(t *testing.T) {
	s := dgxh100.New()
	devs := prepareMock(t, s)
	for _, d := range devs {
		setTelemetry(d, telemetry{})
	}
	q := &eventQueue{}
	masks := withEvents(s, devs, q, 5)
	n, err := NewNVML(s)
	require.NoError(t, err)

	want := map[int]uint64{}
	for i := range devs {
		if i != 5 {
			want[i] = nvml.EventTypeXidCriticalError
		}
	}
	require.Equal(t, want, masks, "every GPU but the unsupported one subscribes to critical XIDs only")

	q.push(devs[0], nvml.EventTypeXidCriticalError, 79)
	q.push(devs[1], nvml.EventTypeXidCriticalError, 48)
	q.push(devs[0], nvml.EventTypeSingleBitEccError, 0) // not an XID
	q.push(devs[0], nvml.EventTypeXidCriticalError, 13)
	q.push(nil, nvml.EventTypeXidCriticalError, 31) // unattributable

	read := func(i int) uint32 {
		t.Helper()
		r, err := n.Read(context.Background(), mockUUID(i))
		require.NoError(t, err)
		return r.XIDErrors
	}
	require.Equal(t, uint32(2), read(0))
	require.Equal(t, uint32(0), read(0), "reset after reporting")
	require.Equal(t, uint32(0), read(2))
	require.Equal(t, uint32(1), read(1), "kept while GPU 0 was drained")
	q.push(devs[1], nvml.EventTypeXidCriticalError, 94)
	require.Equal(t, uint32(1), read(1))

	for _, timeout := range q.timeouts {
		require.Zero(t, timeout, "drains never block")
	}
	require.NoError(t, n.Close())
	require.Equal(t, 1, q.freed)
}

func TestNVMLXIDUnavailable(t *testing.T) {
	cases := []struct {
		name  string
		setup func(s *server.Server, devs []*server.Device, q *eventQueue)
	}{
		{"ready mock has no event sets", func(*server.Server, []*server.Device, *eventQueue) {}},
		{"driver does not support event sets", func(s *server.Server, _ []*server.Device, _ *eventQueue) {
			s.EventSetCreateFunc = func() (nvml.EventSet, nvml.Return) { return nil, nvml.ERROR_NOT_SUPPORTED }
		}},
		{"no GPU supports XID events", func(s *server.Server, devs []*server.Device, q *eventQueue) {
			withEvents(s, devs, q, 0, 1, 2, 3, 4, 5, 6, 7)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := dgxh100.New()
			devs := prepareMock(t, s)
			setTelemetry(devs[0], telemetry{powerMW: 70_000})
			q := &eventQueue{}
			tc.setup(s, devs, q)
			n, err := NewNVML(s)
			require.NoError(t, err)
			r, err := n.Read(context.Background(), mockUUID(0))
			require.NoError(t, err)
			require.Equal(t, uint32(70_000), r.PowerMW)
			require.Zero(t, r.XIDErrors)
			require.Empty(t, q.timeouts, "no event set is polled")
			require.NoError(t, n.Close())
		})
	}
}

func TestNVMLXIDErrors(t *testing.T) {
	t.Run("registration failure fails construction and cleans up", func(t *testing.T) {
		s := dgxh100.New()
		devs := prepareMock(t, s)
		q := &eventQueue{}
		withEvents(s, devs, q)
		devs[3].RegisterEventsFunc = func(uint64, nvml.EventSet) nvml.Return { return nvml.ERROR_NO_PERMISSION }
		shutdowns := 0
		s.ShutdownFunc = func() nvml.Return { shutdowns++; return nvml.SUCCESS }
		n, err := NewNVML(s)
		require.Nil(t, n)
		require.ErrorIs(t, err, nvml.ERROR_NO_PERMISSION)
		require.EqualError(t, err, "GPU 3: nvml RegisterEvents: ERROR_NO_PERMISSION")
		require.Equal(t, 1, q.freed)
		require.Equal(t, 1, shutdowns)
	})
	t.Run("event set creation failure", func(t *testing.T) {
		s := dgxh100.New()
		prepareMock(t, s)
		s.EventSetCreateFunc = func() (nvml.EventSet, nvml.Return) { return nil, nvml.ERROR_UNKNOWN }
		_, err := NewNVML(s)
		require.EqualError(t, err, "nvml EventSetCreate: ERROR_UNKNOWN")
	})
	t.Run("wait failure fails the read", func(t *testing.T) {
		s := dgxh100.New()
		devs := prepareMock(t, s)
		setTelemetry(devs[0], telemetry{})
		q := &eventQueue{}
		withEvents(s, devs, q)
		n, err := NewNVML(s)
		require.NoError(t, err)
		defer n.Close()
		n.xid.set.(*mock.EventSet).WaitFunc = func(uint32) (nvml.EventData, nvml.Return) {
			return nvml.EventData{}, nvml.ERROR_GPU_IS_LOST
		}
		_, err = n.Read(context.Background(), mockUUID(0))
		require.ErrorIs(t, err, nvml.ERROR_GPU_IS_LOST)
		require.EqualError(t, err, "read "+mockUUID(0)+": nvml EventSetWait: ERROR_GPU_IS_LOST")
	})
	t.Run("a set that never times out is drained in bounded steps", func(t *testing.T) {
		s := dgxh100.New()
		devs := prepareMock(t, s)
		setTelemetry(devs[0], telemetry{})
		q := &eventQueue{}
		withEvents(s, devs, q)
		n, err := NewNVML(s)
		require.NoError(t, err)
		defer n.Close()
		n.xid.set.(*mock.EventSet).WaitFunc = func(uint32) (nvml.EventData, nvml.Return) {
			return nvml.EventData{Device: devs[0], EventType: nvml.EventTypeXidCriticalError}, nvml.SUCCESS
		}
		r, err := n.Read(context.Background(), mockUUID(0))
		require.NoError(t, err)
		require.Equal(t, uint32(maxXIDDrain), r.XIDErrors)
	})
}
