//go:build nvml

package gpu

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestSmokeNVML reads the machine's real GPUs through the driver: every
// GPU once a second for 10 s. Run only on a GPU machine:
// go test -tags nvml ./agent/gpu -run Smoke -v
func TestSmokeNVML(t *testing.T) {
	b, err := NewNVMLDefault()
	require.NoError(t, err)
	defer func() { require.NoError(t, b.Close()) }()
	require.Equal(t, "nvml", b.Name())

	ctx := context.Background()
	devs, err := b.Devices(ctx)
	require.NoError(t, err)
	require.NotEmpty(t, devs, "no GPU found")
	t.Logf("%-3s %-40s %-28s %9s %-16s %-10s %-16s %s", "#", "UUID", "MODEL", "MiB", "PCI", "DRIVER", "VBIOS", "CUDA")
	for i, d := range devs {
		t.Logf("%-3d %-40s %-28s %9d %-16s %-10s %-16s %s", i, d.UUID, d.Model, d.MemoryMiB, d.PCIBusID, d.DriverVersion, d.VBIOSVersion, d.CUDAVersion)
		require.True(t, strings.HasPrefix(d.UUID, "GPU-"), d.UUID)
		require.NotEmpty(t, d.Model)
		require.NotZero(t, d.MemoryMiB)
		require.NotEmpty(t, d.PCIBusID)
		require.NotEmpty(t, d.DriverVersion)
		require.Regexp(t, `^\d+\.\d+$`, d.CUDAVersion)
	}

	last := map[string]uint64{}
	for tick := range 11 {
		if tick > 0 {
			time.Sleep(time.Second)
		}
		for _, d := range devs {
			r, err := b.Read(ctx, d.UUID)
			require.NoError(t, err)
			t.Logf("t=%2ds %s util=%5dbps mem=%6dMiB power=%7.1fW energy=%dmJ temp=%dC sm=%dMHz pids=%v xid=%d",
				tick, d.UUID[:12], r.UtilBps, r.MemUsedMiB, float64(r.PowerMW)/1000, r.EnergyMJ, r.TempC, r.SMClockMHz, r.PIDs, r.XIDErrors)
			require.Equal(t, d.UUID, r.UUID)
			require.WithinDuration(t, time.Now(), r.Time, 5*time.Second)
			require.LessOrEqual(t, r.UtilBps, uint32(10_000))
			require.LessOrEqual(t, r.MemUsedMiB, d.MemoryMiB)
			require.NotZero(t, r.PowerMW)
			require.NotZero(t, r.EnergyMJ)
			require.Less(t, r.TempC, uint32(120))
			require.GreaterOrEqual(t, r.EnergyMJ, last[d.UUID], "energy counter went back")
			last[d.UUID] = r.EnergyMJ
		}
	}
}
