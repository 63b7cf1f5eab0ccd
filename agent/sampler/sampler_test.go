package sampler

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/agent/gpu"
)

// flaky is a GPU source for the sampler's scheduling: GPU-b fails every
// other read. (The real backends have their own tests in agent/gpu.)
type flaky struct{ reads int }

func (f *flaky) Name() string                                { return "flaky" }
func (f *flaky) Devices(context.Context) ([]gpu.Info, error) { return nil, nil }
func (f *flaky) Close() error                                { return nil }
func (f *flaky) Read(_ context.Context, u string) (gpu.Reading, error) {
	f.reads++
	if u == "GPU-b" && f.reads%4 == 0 {
		return gpu.Reading{}, errors.New("nvml: GPU is lost")
	}
	return gpu.Reading{UUID: u}, nil
}

func TestNextTick(t *testing.T) {
	at := time.Date(2026, 12, 3, 10, 0, 3, 417_000_000, time.UTC)
	require.Equal(t, at.Truncate(time.Minute).Add(5*time.Second), NextTick(at, 5*time.Second))
	require.Equal(t, at.Truncate(time.Minute).Add(10*time.Second), NextTick(at.Truncate(time.Minute).Add(5*time.Second), 5*time.Second), "strictly after")
}

func TestSamplerTicksOnTheGridAndSkipsFailedReads(t *testing.T) {
	clock := time.Date(2026, 12, 3, 10, 0, 3, 417_000_000, time.UTC)
	ctx, cancel := context.WithCancel(context.Background())
	s := Sampler{GPUs: &flaky{}, Interval: 5 * time.Second, Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Now:   func() time.Time { return clock },
		Sleep: func(_ context.Context, d time.Duration) error { clock = clock.Add(d); return ctx.Err() },
	}
	var ticks []time.Time
	var counts []int
	err := s.Run(ctx, func() []string { return []string{"GPU-a", "GPU-b"} }, func(tick time.Time, rs []gpu.Reading) {
		ticks, counts = append(ticks, tick), append(counts, len(rs))
		clock = clock.Add(40 * time.Millisecond) // reading takes time
		if len(ticks) == 4 {
			cancel()
		}
	})
	require.ErrorIs(t, err, context.Canceled)
	base := time.Date(2026, 12, 3, 10, 0, 5, 0, time.UTC)
	require.Equal(t, []time.Time{base, base.Add(5 * time.Second), base.Add(10 * time.Second), base.Add(15 * time.Second)}, ticks)
	require.Equal(t, []int{2, 1, 2, 1}, counts, "GPU-b's failed reads are left out")
}
