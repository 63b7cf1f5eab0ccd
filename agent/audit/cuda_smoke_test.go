//go:build nvml

package audit

import (
	"context"
	"testing"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/stretchr/testify/require"

	settlementaudit "github.com/idlegpu/idlegpu/x/settlement/audit"
	settlementtypes "github.com/idlegpu/idlegpu/x/settlement/types"
)

// TestSmokeCUDAAudit runs idlegpu/matmul-u32/v1 on every real GPU through
// the driver (the PTX JIT-compiled there) and checks the answer against the
// CPU reference for a few seeds; then it times a larger audit and prints
// the GPU's speed next to the chain's default audit_units_per_second for
// its model. Run only on a GPU machine (make gpu-smoke):
// go test -tags nvml ./agent/audit -run Smoke -v
func TestSmokeCUDAAudit(t *testing.T) {
	d, err := LoadCUDA("")
	require.NoError(t, err)
	uuids, err := d.UUIDs()
	require.NoError(t, err)
	require.NotEmpty(t, uuids, "no GPU found")
	require.Equal(t, nvml.SUCCESS, nvml.Init())
	defer nvml.Shutdown()
	models := settlementtypes.DefaultParams()
	g := GPU{Driver: d}
	ctx := context.Background()
	for _, uuid := range uuids {
		for _, tc := range []struct {
			seed  byte
			units uint64
		}{{1, 1}, {9, 3}, {77, 65}} {
			want, err := settlementaudit.MatMulV1{}.Run(ctx, seed(tc.seed), tc.units)
			require.NoError(t, err)
			got, err := g.Run(ctx, uuid, settlementaudit.MatMulV1Name, seed(tc.seed), tc.units)
			require.NoError(t, err)
			require.Equal(t, want, got, "%s: seed %d, %d units", uuid, tc.seed, tc.units)
		}
		const units = 20_000
		start := time.Now()
		_, err := g.Run(ctx, uuid, settlementaudit.MatMulV1Name, seed(5), units)
		require.NoError(t, err)
		took := time.Since(start)
		model := "?"
		if dev, ret := nvml.DeviceGetHandleByUUID(uuid); ret == nvml.SUCCESS {
			model, _ = dev.GetName()
		}
		ref := uint64(0)
		if m, ok := models.GPUModel(model); ok {
			ref = m.AuditUnitsPerSecond
		}
		t.Logf("%s %s: %d units in %s = %.0f units/s measured; chain's audit_units_per_second %d (audit_slack %d)",
			uuid, model, units, took.Round(time.Millisecond), units/took.Seconds(), ref, models.AuditSlack)
	}
}
