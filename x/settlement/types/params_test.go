package types_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	sdkmath "cosmossdk.io/math"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/internal/check"
	"github.com/idlegpu/idlegpu/x/settlement/audit"
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
	require.EqualValues(t, 60, p.AuditLatencySeconds)
	require.Equal(t, 24*time.Hour, p.AuditCooldown())
	require.Equal(t, time.Hour, p.AuditMax())
	require.Equal(t, 10*time.Minute, p.AuditProve())
	require.EqualValues(t, 16, p.AuditSamples)
	require.Equal(t, 7*24*time.Hour, p.AuditValidity())
	require.Equal(t, "100000ugpu,100000uusdc", p.AuditRequestFee.String())
	require.EqualValues(t, 1, p.RandomAuditsPerDraw)
	require.EqualValues(t, 600, p.RandomAuditIntervalBlocks)
	require.Equal(t, time.Second, p.ExpectedBlock())
	require.Len(t, p.GpuModels, 5)
	require.Equal(t, types.GPUModel{Model: "NVIDIA H100 80GB HBM3", IdleW: 70, MaxW: 700, MemoryMib: 81559, MemoryBandwidthGbps: 3350}, p.GpuModels[2])
}

func TestParamsValidate(t *testing.T) {
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
		{"no bandwidth", func(p *types.Params) { p.GpuModels[3].MemoryBandwidthGbps = 0 }, "NVIDIA H200: memory_bandwidth_gbps must be positive"},
		{"a board too small to audit", func(p *types.Params) { p.GpuModels[3].MemoryMib = 1 }, "NVIDIA H200: table of 14746 items is below the least 16384"},
		{"zero audit latency", func(p *types.Params) { p.AuditLatencySeconds = 0 }, "audit_latency_seconds must be greater than 0"},
		{"zero audit cooldown", func(p *types.Params) { p.AuditCooldownSeconds = 0 }, "audit_cooldown_seconds must be greater than 0"},
		{"zero misses per block", func(p *types.Params) { p.MaxMissesPerBlock = 0 }, "max_misses_per_block must be greater than 0"},
		{"zero audit steps per block", func(p *types.Params) { p.MaxAuditStepsPerBlock = 0 }, "max_audit_steps_per_block must be greater than 0"},
		{"zero prunes per block", func(p *types.Params) { p.MaxPrunesPerBlock = 0 }, "max_prunes_per_block must be greater than 0"},
		{"zero audit max", func(p *types.Params) { p.AuditMaxSeconds = 0 }, "audit_max_seconds must be greater than 0"},
		{"audit max below a model's deadline", func(p *types.Params) { p.AuditMaxSeconds = 168 }, "NVIDIA A100-SXM4-80GB's audit needs 2m49s to its deadline, above audit_max_seconds 168"},
		{"zero prove time", func(p *types.Params) { p.AuditProveSeconds = 0 }, "audit_prove_seconds must be greater than 0"},
		{"no samples", func(p *types.Params) { p.AuditSamples = 0 }, "audit_samples must be in 1..64, got 0"},
		{"too many samples", func(p *types.Params) { p.AuditSamples = 65 }, "audit_samples must be in 1..64, got 65"},
		{"zero validity", func(p *types.Params) { p.AuditValiditySeconds = 0 }, "audit_validity_seconds must be greater than 0"},
		{"bad request fee", func(p *types.Params) {
			p.AuditRequestFee = sdk.Coins{sdk.Coin{Denom: "uusdc", Amount: sdkmath.ZeroInt()}}
		}, "audit_request_fee"},
		{"zero random interval", func(p *types.Params) { p.RandomAuditIntervalBlocks = 0 }, "random_audit_interval_blocks must be greater than 0"},
		{"too many random audits", func(p *types.Params) { p.RandomAuditsPerDraw = 17 }, "random_audits_per_draw 17 exceeds 16"},
		{"zero expected block", func(p *types.Params) { p.ExpectedBlockMillis = 0 }, "expected_block_millis must be greater than 0"},
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
	require.NoError(t, p.Validate())
}

// TestAuditPlan: each default model's audit, from its memory and
// bandwidth: the deadline is max(2 × expected + latency, halt_gap +
// expected), whole seconds (docs/design.md#audits shows the arithmetic).
func TestAuditPlan(t *testing.T) {
	p := types.DefaultParams()
	for _, tc := range []struct {
		model              string
		expected, deadline time.Duration
		steps              uint32
	}{
		{"NVIDIA A100-SXM4-80GB", 48_533 * time.Millisecond, 169 * time.Second, 4608},
		{"NVIDIA GeForce RTX 4090", 29_443 * time.Millisecond, 150 * time.Second, 1382},
		{"NVIDIA H100 80GB HBM3", 29_411 * time.Millisecond, 150 * time.Second, 4588},
		{"NVIDIA H200", 36_186 * time.Millisecond, 157 * time.Second, 8088},
		{"NVIDIA L40S", 64_422 * time.Millisecond, 189 * time.Second, 2592},
	} {
		m, ok := p.GPUModel(tc.model)
		require.True(t, ok, tc.model)
		plan, err := p.AuditPlan(m)
		require.NoError(t, err, tc.model)
		require.Equal(t, tc.expected, plan.Expected, tc.model)
		require.Equal(t, tc.deadline, plan.Allowance, tc.model)
		require.Equal(t, tc.steps, plan.Shape.SegmentSteps, tc.model)
		require.Equal(t, uint64(1<<26), plan.Shape.Leaves(), tc.model)
		require.GreaterOrEqual(t, plan.Shape.TableBytes()*10, m.MemoryMib*(1<<20)*9, "%s: at least 90%% of memory", tc.model)
		require.Less(t, (plan.Shape.TableBytes()-audit.ItemBytes)*10, m.MemoryMib*(1<<20)*9, "%s: the least table that is", tc.model)
	}
	sim, err := p.AuditPlan(types.SimulatedModel())
	require.NoError(t, err)
	require.Equal(t, 123*time.Second, sim.Allowance, "halt_gap + expected, rounded up")
	p.HaltGapSeconds = 1
	h100, _ := p.GPUModel("NVIDIA H100 80GB HBM3")
	plan, err := p.AuditPlan(h100)
	require.NoError(t, err)
	require.Equal(t, 119*time.Second, plan.Allowance, "2 × 29.411 s + 60 s, rounded up")
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
