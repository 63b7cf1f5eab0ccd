package types_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/x/provider/types"
)

func TestMaxMemoryMiB(t *testing.T) {
	for _, tc := range []struct{ table, max uint64 }{
		{81559, 82374},   // H100 80GB HBM3: 81559 + 815
		{143771, 145208}, // H200: 143771 + 1437
		{99, 99},         // below 100 MiB 1% rounds to 0
		{10_000, 10_100},
		{math.MaxUint64, math.MaxUint64}, // saturates
		{math.MaxUint64 - 5, math.MaxUint64},
	} {
		require.Equal(t, tc.max, types.MaxMemoryMiB(tc.table), "table %d", tc.table)
	}
}

func TestCheckModelMemory(t *testing.T) {
	g := h100
	require.NoError(t, types.CheckModelMemory(g, 81559, true), "what NVML reports")
	g.MemoryMib = 81920 // the board's 80 GiB
	require.NoError(t, types.CheckModelMemory(g, 81559, true))
	g.MemoryMib = 40_000 // ECC or reserved memory: less is the provider's loss
	require.NoError(t, types.CheckModelMemory(g, 81559, true))
	g.MemoryMib = 82375
	require.ErrorIs(t, types.CheckModelMemory(g, 81559, true), types.ErrInvalidGPU)
	g.MemoryMib = math.MaxUint64
	require.ErrorIs(t, types.CheckModelMemory(g, 81559, true), types.ErrInvalidGPU)
	require.ErrorIs(t, types.CheckModelMemory(h100, 0, false), types.ErrUnknownGPUModel)
}
