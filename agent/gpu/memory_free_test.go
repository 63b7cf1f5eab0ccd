package gpu

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// memBackend reports a GPU's memory used from a script, one value a read.
type memBackend struct {
	mu   sync.Mutex
	used map[string][]uint64
}

func (m *memBackend) Name() string                            { return "test" }
func (m *memBackend) Devices(context.Context) ([]Info, error) { return nil, nil }
func (m *memBackend) Close() error                            { return nil }
func (m *memBackend) Read(_ context.Context, u string) (Reading, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	vs, ok := m.used[u]
	if !ok {
		return Reading{}, ErrUnknownGPU
	}
	v := vs[0]
	if len(vs) > 1 {
		m.used[u] = vs[1:]
	}
	return Reading{UUID: u, MemUsedMiB: v}, nil
}

func TestMemoryFreeCheck(t *testing.T) {
	ctx := context.Background()
	b := &memBackend{used: map[string][]uint64{"GPU-a": {512, 0}, "GPU-b": {0}, "GPU-c": {80000}}}
	check := MemoryFreeCheck(b, time.Second, time.Millisecond)
	require.NoError(t, check(ctx, []string{"GPU-a", "GPU-b"}), "freed by the driver on the second read")
	err := MemoryFreeCheck(b, 20*time.Millisecond, time.Millisecond)(ctx, []string{"GPU-b", "GPU-c"})
	require.EqualError(t, err, "GPU memory still in use after the job: [GPU-c (80000 MiB)]")
	require.ErrorIs(t, check(ctx, []string{"GPU-x"}), ErrUnknownGPU)
}
