package types_test

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/internal/check"
	"github.com/idlegpu/idlegpu/x/settlement/types"
)

func TestDefaultParams(t *testing.T) {
	p := types.DefaultParams()
	require.NoError(t, p.Validate())
	// docs/design.md#params.
	require.EqualValues(t, 600, p.EpochSeconds)
	require.EqualValues(t, 5, p.SampleIntervalSeconds)
	require.Equal(t, 5*time.Second, p.SampleInterval())
	require.Equal(t, 10*time.Minute, p.Epoch())
	require.EqualValues(t, 9000, p.MinSamplesRatioBps)
	require.EqualValues(t, 300, p.ProofGraceSeconds)
	require.Equal(t, 5*time.Minute, p.ProofGrace())
	require.EqualValues(t, 2, p.MaxMissedEpochs)
	require.EqualValues(t, 200, p.TakeRateBps)
	require.EqualValues(t, 1000, p.ProofRetention)
	require.EqualValues(t, 3, p.AuditSlack)
	require.EqualValues(t, 60, p.AuditLatencySeconds)
	require.Equal(t, 24*time.Hour, p.AuditCooldown())
	require.Empty(t, p.Auditors, "audits are off until governance names auditors")
	require.Equal(t, time.Hour, p.AuditMax())
	require.Equal(t, 10*time.Minute, p.AuditReveal())
	require.Len(t, p.GpuModels, 5)
	require.Equal(t, types.GPUModel{Model: "NVIDIA H100 80GB HBM3", IdleW: 70, MaxW: 700, MemoryMib: 81559, AuditUnitsPerSecond: 1000}, p.GpuModels[2])
}

func TestParamsValidate(t *testing.T) {
	auditorA, auditorB := sdk.AccAddress(bytes.Repeat([]byte{1}, 20)).String(), sdk.AccAddress(bytes.Repeat([]byte{2}, 20)).String()
	if auditorB < auditorA {
		auditorA, auditorB = auditorB, auditorA
	}
	testCases := []struct {
		name   string
		modify func(*types.Params)
		expErr string
	}{
		{"zero epoch", func(p *types.Params) { p.EpochSeconds = 0 }, "epoch_seconds must be greater than 0"},
		{"zero sample interval", func(p *types.Params) { p.SampleIntervalSeconds = 0 }, "sample_interval_seconds must be greater than 0"},
		{"sample interval longer than epoch", func(p *types.Params) { p.EpochSeconds = 4 }, "sample_interval_seconds 5 must not exceed epoch_seconds 4"},
		{"samples ratio zero", func(p *types.Params) { p.MinSamplesRatioBps = 0 }, "min_samples_ratio_bps must be greater than 0"},
		{"samples ratio above 100%", func(p *types.Params) { p.MinSamplesRatioBps = 11_000 }, "min_samples_ratio_bps must be at most 10000 bps, got 11000"},
		{"no grace", func(p *types.Params) { p.ProofGraceSeconds = 0 }, "proof_grace_seconds must be greater than 0"},
		{"epoch beyond 100 years", func(p *types.Params) { p.EpochSeconds = check.MaxSeconds + 1 }, "epoch_seconds must be at most 3153600000"},
		{"no misses allowed", func(p *types.Params) { p.MaxMissedEpochs = 0 }, "max_missed_epochs must be greater than 0"},
		{"take everything", func(p *types.Params) { p.TakeRateBps = 10_000 }, "take_rate_bps must be below 10000, got 10000"},
		{"take more than everything", func(p *types.Params) { p.TakeRateBps = 12_000 }, "take_rate_bps must be below 10000, got 12000"},
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
		{"zero audit latency", func(p *types.Params) { p.AuditLatencySeconds = 0 }, "audit_latency_seconds must be greater than 0"},
		{"zero audit cooldown", func(p *types.Params) { p.AuditCooldownSeconds = 0 }, "audit_cooldown_seconds must be greater than 0"},
		{"zero misses per block", func(p *types.Params) { p.MaxMissesPerBlock = 0 }, "max_misses_per_block must be greater than 0"},
		{"zero audit steps per block", func(p *types.Params) { p.MaxAuditStepsPerBlock = 0 }, "max_audit_steps_per_block must be greater than 0"},
		{"zero prunes per block", func(p *types.Params) { p.MaxPrunesPerBlock = 0 }, "max_prunes_per_block must be greater than 0"},
		{"zero audit max", func(p *types.Params) { p.AuditMaxSeconds = 0 }, "audit_max_seconds must be greater than 0"},
		{"audit max within latency", func(p *types.Params) { p.AuditMaxSeconds = 60 }, "audit_max_seconds 60 must exceed audit_latency_seconds 60"},
		{"zero reveal time", func(p *types.Params) { p.AuditRevealSeconds = 0 }, "audit_reveal_seconds must be greater than 0"},
		{"bad auditor", func(p *types.Params) { p.Auditors = []string{"cosmos1nope"} }, "auditors[0]: decoding bech32 failed"},
		{"unsorted auditors", func(p *types.Params) { p.Auditors = []string{auditorB, auditorA} }, "auditors must be sorted and unique"},
		{"duplicate auditor", func(p *types.Params) { p.Auditors = []string{auditorA, auditorA} }, "auditors must be sorted and unique"},
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
	p.TakeRateBps = 0
	p.GpuModels = nil
	p.Auditors = []string{auditorA, auditorB}
	require.NoError(t, p.Validate())
	require.True(t, p.IsAuditor(auditorB))
	require.False(t, types.DefaultParams().IsAuditor(auditorB))
}

// TestLeastAuditTime: ceil(units / rate) × slack + latency, saturating.
func TestLeastAuditTime(t *testing.T) {
	p := types.DefaultParams()
	h100, _ := p.GPUModel("NVIDIA H100 80GB HBM3")
	require.Equal(t, 63*time.Second, p.LeastAuditTime(h100, 1))        // ceil(1/1000)=1 s ×3 + 60
	require.Equal(t, 63*time.Second, p.LeastAuditTime(h100, 1000))     // exactly 1 s
	require.Equal(t, 66*time.Second, p.LeastAuditTime(h100, 1001))     // 2 s
	require.Equal(t, 360*time.Second, p.LeastAuditTime(h100, 100_000)) // 100 s ×3 + 60
	require.Equal(t, time.Duration(1<<63-1), p.LeastAuditTime(h100, 1<<64-1))
	p.AuditSlack = 1 << 31
	require.Equal(t, time.Duration(1<<63-1), p.LeastAuditTime(h100, 1<<40))
}

func TestGenesisValidate(t *testing.T) {
	require.NoError(t, types.DefaultGenesis().Validate())
	gs := types.DefaultGenesis()
	gs.Params.EpochSeconds = 0
	require.ErrorIs(t, gs.Validate(), types.ErrInvalidGenesis)
}

// TestRetention: proof_retention epochs, saturating rather than wrapping.
func TestRetention(t *testing.T) {
	p := types.DefaultParams()
	require.Equal(t, 1000*600*time.Second, p.Retention(600))
	require.Equal(t, 1000*30*time.Second, p.Retention(30), "a lease's own epoch length")
	p.ProofRetention = 1 << 63 // × 600 would wrap uint64
	require.Equal(t, time.Duration(uint64(1<<62)/uint64(time.Second))*time.Second, p.Retention(600))
}
