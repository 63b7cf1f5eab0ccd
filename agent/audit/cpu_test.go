package audit

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	settlementaudit "github.com/idlegpu/idlegpu/x/settlement/audit"
)

func seed(b byte) []byte {
	s := make([]byte, settlementaudit.SeedSize)
	for i := range s {
		s[i] = b + byte(i)
	}
	return s
}

// smallShape is a valid shape small enough for the CPU reference in a test.
var smallShape = settlementaudit.Shape{TableItems: 20_011, Lanes: 8, Segments: 4, SegmentSteps: 9}

// A simulated GPU answers with the reference transcript, no sooner than its
// model's claimed time allows.
func TestCPUPacedToClaimedTime(t *testing.T) {
	want, err := settlementaudit.Run(context.Background(), seed(3), smallShape)
	require.NoError(t, err)

	// The clock reads 300 ms later after the run: the runner sleeps the
	// rest of the claimed 2 s.
	clock := []time.Time{time.Unix(1_000, 0), time.Unix(1_000, 300_000_000)}
	var slept time.Duration
	c := CPU{
		Expected: func(uuid string) time.Duration { require.Equal(t, "GPU-sim", uuid); return 2 * time.Second },
		Now:      func() time.Time { now := clock[0]; clock = clock[1:]; return now },
		Sleep:    func(_ context.Context, d time.Duration) error { slept += d; return nil },
	}
	got, err := c.Run(context.Background(), "GPU-sim", seed(3), smallShape)
	require.NoError(t, err)
	require.Equal(t, want, got)
	require.Equal(t, 1700*time.Millisecond, slept)

	// A run slower than the claim, or a model without one, is not paced.
	for _, expected := range []time.Duration{200 * time.Millisecond, 0} {
		clock = []time.Time{time.Unix(1_000, 0), time.Unix(1_000, 300_000_000)}
		slept = 0
		c.Expected = func(string) time.Duration { return expected }
		got, err = c.Run(context.Background(), "GPU-sim", seed(3), smallShape)
		require.NoError(t, err)
		require.Equal(t, want, got)
		require.Zero(t, slept)
	}
	got, err = CPU{}.Run(context.Background(), "GPU-sim", seed(3), smallShape)
	require.NoError(t, err)
	require.Equal(t, want, got)
}

func TestCPUCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := CPU{}.Run(ctx, "GPU-sim", seed(3), smallShape)
	require.ErrorIs(t, err, context.Canceled)

	// Cancelled while pacing: the default sleep returns at once.
	ctx, cancel = context.WithCancel(context.Background())
	c := CPU{Expected: func(string) time.Duration { return time.Hour }}
	go func() { time.Sleep(50 * time.Millisecond); cancel() }()
	_, err = c.Run(ctx, "GPU-sim", seed(3), smallShape)
	require.ErrorIs(t, err, context.Canceled)
}

func TestCPURejectsBadInput(t *testing.T) {
	_, err := CPU{}.Run(context.Background(), "GPU-sim", seed(3)[:31], smallShape)
	require.Error(t, err)
	bad := smallShape
	bad.Lanes = 3
	_, err = CPU{}.Run(context.Background(), "GPU-sim", seed(3), bad)
	require.Error(t, err)
}
