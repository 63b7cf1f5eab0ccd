package types_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"cosmossdk.io/math"

	"github.com/idlegpu/idlegpu/x/settlement/types"
)

func TestDefaultParams(t *testing.T) {
	p := types.DefaultParams()
	require.NoError(t, p.Validate())
	// DESIGN.md §4.4.
	require.EqualValues(t, 600, p.EpochSeconds)
	require.Equal(t, 5*time.Second, p.SampleInterval)
	require.Equal(t, "0.900000000000000000", p.MinSamplesRatio.String())
	require.Equal(t, 300*time.Second, p.ProofGrace)
	require.EqualValues(t, 2, p.MaxMissedEpochs)
	require.Equal(t, "0.020000000000000000", p.TakeRate.String())
	require.EqualValues(t, 1000, p.ProofRetention)
	require.EqualValues(t, 3, p.AuditSlack)
	require.Equal(t, 60*time.Second, p.AuditLatency)
	require.Len(t, p.GpuModels, 5)
	require.Equal(t, types.GPUModel{Model: "NVIDIA H100 80GB HBM3", IdleW: 70, MaxW: 700, MemoryMib: 81559, AuditUnitsPerSecond: 1000}, p.GpuModels[2])
}

func TestParamsValidate(t *testing.T) {
	testCases := []struct {
		name   string
		modify func(*types.Params)
		expErr string
	}{
		{"zero epoch", func(p *types.Params) { p.EpochSeconds = 0 }, "epoch_seconds must be greater than 0"},
		{"zero sample interval", func(p *types.Params) { p.SampleInterval = 0 }, "sample_interval must be positive"},
		{"sample interval longer than epoch", func(p *types.Params) { p.EpochSeconds = 4 }, "sample_interval 5s must not exceed the epoch (4s)"},
		{"samples ratio zero", func(p *types.Params) { p.MinSamplesRatio = math.LegacyZeroDec() }, "min_samples_ratio must be greater than 0"},
		{"samples ratio above one", func(p *types.Params) { p.MinSamplesRatio = math.LegacyNewDecWithPrec(11, 1) }, "min_samples_ratio must be at most 1"},
		{"fractional grace", func(p *types.Params) { p.ProofGrace = 2500 * time.Millisecond }, "proof_grace must be whole seconds, got 2.5s"},
		{"no misses allowed", func(p *types.Params) { p.MaxMissedEpochs = 0 }, "max_missed_epochs must be greater than 0"},
		{"take everything", func(p *types.Params) { p.TakeRate = math.LegacyOneDec() }, "take_rate must be below 1"},
		{"negative take", func(p *types.Params) { p.TakeRate = math.LegacyNewDecWithPrec(-1, 2) }, "take_rate must not be negative"},
		{"no retention", func(p *types.Params) { p.ProofRetention = 0 }, "proof_retention must be greater than 0"},
		{"unsorted models", func(p *types.Params) { p.GpuModels[0], p.GpuModels[1] = p.GpuModels[1], p.GpuModels[0] }, `gpu_models must be sorted by model and unique: "NVIDIA A100-SXM4-80GB" after "NVIDIA GeForce RTX 4090"`},
		{"duplicate model", func(p *types.Params) { p.GpuModels[1] = p.GpuModels[0] }, "gpu_models must be sorted by model and unique"},
		{"model without name", func(p *types.Params) { p.GpuModels[0].Model = "" }, "gpu_models[0]: model must not be empty"},
		{"model name too long", func(p *types.Params) { p.GpuModels[4].Model = "NVIDIA " + string(make([]byte, 100)) }, "gpu_models[4]: model must be at most 96 bytes, got 107"},
		{"model name not printable", func(p *types.Params) { p.GpuModels[4].Model = "NVIDIA L40S\n" }, `model "NVIDIA L40S\n" must be printable ASCII`},
		{"no idle power", func(p *types.Params) { p.GpuModels[2].IdleW = 0 }, "NVIDIA H100 80GB HBM3: idle_w must be positive"},
		{"max below idle", func(p *types.Params) { p.GpuModels[2].MaxW = 70 }, "NVIDIA H100 80GB HBM3: max_w 70 must exceed idle_w 70"},
		{"no memory", func(p *types.Params) { p.GpuModels[3].MemoryMib = 0 }, "NVIDIA H200: memory_mib must be positive"},
		{"no audit rate", func(p *types.Params) { p.GpuModels[3].AuditUnitsPerSecond = 0 }, "NVIDIA H200: audit_units_per_second must be positive"},
		{"zero audit slack", func(p *types.Params) { p.AuditSlack = 0 }, "audit_slack must be greater than 0"},
		{"zero audit latency", func(p *types.Params) { p.AuditLatency = 0 }, "audit_latency must be positive"},
		{"zero audit cooldown", func(p *types.Params) { p.AuditCooldown = 0 }, "audit_cooldown must be positive"},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			p := types.DefaultParams()
			tc.modify(&p)
			err := p.Validate()
			require.ErrorIs(t, err, types.ErrInvalidParams)
			require.ErrorContains(t, err, tc.expErr)
		})
	}

	// A free market (no fee) and an empty model table are allowed.
	p := types.DefaultParams()
	p.TakeRate = math.LegacyZeroDec()
	p.GpuModels = nil
	require.NoError(t, p.Validate())
}

func TestGenesisValidate(t *testing.T) {
	require.NoError(t, types.DefaultGenesis().Validate())
	gs := types.DefaultGenesis()
	gs.Params.EpochSeconds = 0
	require.ErrorIs(t, gs.Validate(), types.ErrInvalidGenesis)
}
