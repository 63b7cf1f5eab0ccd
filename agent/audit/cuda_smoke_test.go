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

// TestSmokeCUDAAudit runs idlegpu/memwalk/v1 on every real GPU through the
// driver (the PTX JIT-compiled there): on each GPU a small shape, in one
// launch and in many, must equal the CPU reference byte for byte; then,
// once per model, the board's full shape is run, a few of its leaves
// checked as the chain checks them, and its build and walk times printed
// next to the chain's expected timing with the measured random-read rate,
// so the model table and RandomReadEfficiencyBps can be calibrated. Run
// only on a GPU machine (make gpu-smoke):
// go test -tags nvml ./agent/audit -run Smoke -v
func TestSmokeCUDAAudit(t *testing.T) {
	d, err := LoadCUDA("")
	require.NoError(t, err)
	uuids, err := d.UUIDs()
	require.NoError(t, err)
	require.NotEmpty(t, uuids, "no GPU found")
	require.Equal(t, nvml.SUCCESS, nvml.Init())
	defer func() { _ = nvml.Shutdown() }()
	ctx := context.Background()

	small := settlementaudit.Shape{TableItems: 200_003, Lanes: 1 << 10, Segments: 8, SegmentSteps: 64}
	want, err := settlementaudit.Run(ctx, seed(9), small)
	require.NoError(t, err)
	measured := map[string]bool{}
	for _, uuid := range uuids {
		for name, g := range map[string]GPU{
			"one launch each": {Driver: d},
			"many launches":   {Driver: d, buildChunk: 10_000, batchLanes: 300, launchReads: 1},
		} {
			got, err := g.Run(ctx, uuid, seed(9), small)
			require.NoError(t, err, "%s: small shape, %s", uuid, name)
			require.Equal(t, want, got, "%s: small shape, %s", uuid, name)
		}

		model, memMiB := "?", uint64(0)
		if dev, ret := nvml.DeviceGetHandleByUUID(uuid); ret == nvml.SUCCESS {
			model, _ = dev.GetName()
			if mem, ret := dev.GetMemoryInfo(); ret == nvml.SUCCESS {
				memMiB = mem.Total >> 20
			}
		}
		if measured[model] {
			continue
		}
		measured[model] = true
		// The chain sizes the audit from the claimed model's memory.
		for _, m := range settlementtypes.DefaultGPUModels() {
			if m.Model == model {
				memMiB = m.MemoryMib
			}
		}
		smokeFullShape(t, d, uuid, model, memMiB)
	}
}

// smokeFullShape runs a board's full audit and reports its timing.
func smokeFullShape(t *testing.T, d *CUDA, uuid, model string, memMiB uint64) {
	shape, err := settlementaudit.ShapeFor(memMiB)
	require.NoError(t, err, "%s %s: %d MiB", uuid, model, memMiB)
	var tm Timings
	g := GPU{Driver: d, Observe: func(x Timings) { tm = x }}
	sd := seed(5)
	start := time.Now()
	st, err := g.Run(context.Background(), uuid, sd, shape)
	require.NoError(t, err, "%s %s: full shape %+v", uuid, model, shape)
	total := time.Since(start)

	// A few leaves recomputed from the cache alone, as the chain samples
	// them: the full-size table (64-bit offsets) and the last lane too.
	cache, err := settlementaudit.NewCache(sd)
	require.NoError(t, err)
	leaves := []uint64{0, 1, shape.Leaves() / 2, shape.Leaves() - 1}
	leaves = append(leaves, settlementaudit.SampleLeaves(sd, 1, st.Leaf(0), shape.Leaves(), 4)...)
	for _, i := range leaves {
		o := settlementaudit.Opening{Index: i}
		o.State, err = settlementaudit.StateFromBytes(st.Leaf(i))
		require.NoError(t, err)
		if shape.NeedsPrev(i) {
			o.Prev, err = settlementaudit.StateFromBytes(st.Leaf(i - 1))
			require.NoError(t, err)
		}
		ok, err := settlementaudit.CheckSegment(cache, sd, shape, o)
		require.NoError(t, err)
		require.True(t, ok, "%s %s: leaf %d of the full shape", uuid, model, i)
	}

	reads := float64(shape.Reads())
	walkRate := reads / tm.Walk.Seconds()
	t.Logf("%s %s: %d MiB, shape %+v (%.1f GB table, %d leaves, %.3g reads)",
		uuid, model, memMiB, shape, float64(shape.TableBytes())/1e9, shape.Leaves(), reads)
	t.Logf("  measured: setup %s, build %s, walk %s, total %s; walk %.3g reads/s = %.0f GB/s of 64-byte random reads",
		tm.Setup.Round(time.Millisecond), tm.Build.Round(time.Millisecond), tm.Walk.Round(time.Millisecond),
		total.Round(time.Millisecond), walkRate, walkRate*settlementaudit.ItemBytes/1e9)
	m, ok := settlementtypes.DefaultParams().GPUModel(model)
	if !ok {
		t.Logf("  %q is not in the chain's default table: expected timing not computed", model)
		return
	}
	bw := m.MemoryBandwidthGbps
	exp := settlementaudit.TimingFor(shape, bw)
	t.Logf("  expected (TimingFor at %d GB/s): build %.2fs, walk %.2fs, total %.2fs; measured/expected: build %.2f, walk %.2f, total %.2f",
		bw, float64(exp.BuildMs)/1000, float64(exp.WalkMs)/1000, float64(exp.Ms())/1000,
		float64(tm.Build.Milliseconds())/float64(exp.BuildMs), float64(tm.Walk.Milliseconds())/float64(exp.WalkMs),
		float64(total.Milliseconds())/float64(exp.Ms()))
	t.Logf("  implied random-read efficiency: %.0f bps of peak bandwidth (RandomReadEfficiencyBps assumes %d)",
		walkRate*settlementaudit.ItemBytes/(float64(bw)*1e9)*10_000, settlementaudit.RandomReadEfficiencyBps)
}
