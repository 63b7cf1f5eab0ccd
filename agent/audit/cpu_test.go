package audit

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	settlementaudit "github.com/idlegpu/idlegpu/x/settlement/audit"
)

// A simulated GPU answers with the reference result, no sooner than its
// model's claimed speed allows.
func TestCPUPacedToClaimedSpeed(t *testing.T) {
	now := time.Unix(1_000, 0)
	var slept time.Duration
	c := CPU{
		UnitsPerSecond: func(uuid string) uint64 { require.Equal(t, "GPU-sim", uuid); return 2 },
		Now:            func() time.Time { return now },
		Sleep:          func(_ context.Context, d time.Duration) error { slept += d; return nil },
	}
	want, err := settlementaudit.MatMulV1{}.Run(context.Background(), seed(3), 3)
	require.NoError(t, err)
	got, err := c.Run(context.Background(), "GPU-sim", settlementaudit.MatMulV1Name, seed(3), 3)
	require.NoError(t, err)
	require.Equal(t, want, got)
	require.Equal(t, 1500*time.Millisecond, slept, "3 units at 2 units/s")

	_, err = c.Run(context.Background(), "GPU-sim", "idlegpu/other/v1", seed(3), 3)
	require.ErrorIs(t, err, ErrUnknownWorkload)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = CPU{}.Run(ctx, "GPU-sim", settlementaudit.MatMulV1Name, seed(3), 3)
	require.ErrorIs(t, err, context.Canceled)
}
