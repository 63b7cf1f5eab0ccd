package types

import (
	"fmt"
	"time"

	errorsmod "cosmossdk.io/errors"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/base/chaincfg"
	"github.com/idlegpu/idlegpu/x/internal/check"
)

// Default parameter values (docs/design.md#params).
const (
	DefaultEpochSeconds          uint64 = 600
	DefaultSampleIntervalSeconds uint64 = 5
	DefaultProofGraceSeconds     uint64 = 300
	DefaultMaxMissedEpochs       uint32 = 2
	// DefaultMissWindowEpochs: two misses in any twelve settled epochs (two
	// hours of 600 s epochs) fail a lease, alternate or not.
	DefaultMissWindowEpochs      uint32 = 12
	DefaultProofRetention        uint64 = 1000
	DefaultAuditLatencySeconds   uint64 = 60
	DefaultAuditCooldownSeconds  uint64 = 24 * 3600
	DefaultMaxMissesPerBlock     uint32 = 500
	DefaultMaxPrunesPerBlock     uint32 = 500
	DefaultMaxAuditStepsPerBlock uint32 = 200
	DefaultAuditMaxSeconds       uint64 = 3600
	DefaultAuditProveSeconds     uint64 = 600
	DefaultAuditSamples          uint32 = 16
	DefaultAuditValiditySeconds  uint64 = 7 * 24 * 3600
	// DefaultRandomAuditsPerDraw and DefaultRandomAuditIntervalBlocks
	// audit one idle, verified GPU every ten minutes of 1 s blocks.
	DefaultRandomAuditsPerDraw       uint32 = 1
	DefaultRandomAuditIntervalBlocks uint64 = 600
	DefaultExpectedBlockMillis       uint64 = 1000
	// DefaultHaltGapSeconds: with 1 s blocks, two minutes without one is a
	// halt, not a slow block.
	DefaultHaltGapSeconds uint64 = 120

	// MaxModelNameLength bounds a GPU model name (NVML names are < 96 bytes).
	MaxModelNameLength = 96
)

// Default ratios (docs/design.md#params).
const (
	// DefaultMinSamplesRatioBps accepts a proof with 90% of the expected samples.
	DefaultMinSamplesRatioBps uint32 = 9000
	// DefaultTakeRateBps is the 2% protocol fee.
	DefaultTakeRateBps uint32 = 200
)

// DefaultGPUModels is the plausibility table a new chain starts with, sorted
// by model. Names and memory are what NVML reports; idle and max power are the
// boards' typical idle draw and their power limit; memory bandwidth is the
// vendor's published peak (docs/design.md#audits cites each datasheet).
// Governance extends it.
func DefaultGPUModels() []GPUModel {
	return []GPUModel{
		{Model: "NVIDIA A100-SXM4-80GB", IdleW: 50, MaxW: 400, MemoryMib: 81920, MemoryBandwidthGbps: 2039},
		{Model: "NVIDIA GeForce RTX 4090", IdleW: 20, MaxW: 450, MemoryMib: 24564, MemoryBandwidthGbps: 1008},
		{Model: "NVIDIA H100 80GB HBM3", IdleW: 70, MaxW: 700, MemoryMib: 81559, MemoryBandwidthGbps: 3350},
		{Model: "NVIDIA H200", IdleW: 75, MaxW: 700, MemoryMib: 143771, MemoryBandwidthGbps: 4800},
		{Model: "NVIDIA L40S", IdleW: 35, MaxW: 350, MemoryMib: 46068, MemoryBandwidthGbps: 864},
	}
}

// SimulatedGPUModel names the table entry a development chain audits its
// simulated GPUs with (x/provider's allow_simulated_gpus).
const SimulatedGPUModel = "idlegpu simulated GPU"

// SimulatedModel is the development chains' entry for simulated GPUs: a
// 2 MiB board at 1 GB/s, whose whole audit (required, random, verified on
// chain) runs on a CPU in about a second. Never in a real network's table.
func SimulatedModel() GPUModel {
	return GPUModel{Model: SimulatedGPUModel, IdleW: 70, MaxW: 700, MemoryMib: 2, MemoryBandwidthGbps: 1}
}

// DefaultAuditRequestFee is 0.1 of each market currency the chain starts
// with: an H100's rent for the few minutes an audit holds it.
func DefaultAuditRequestFee() sdk.Coins {
	return sdk.NewCoins(sdk.NewInt64Coin(chaincfg.BondDenom, 100_000), sdk.NewInt64Coin(chaincfg.USDCDenom, 100_000))
}

// DefaultReliabilityStepPayment is 10 of each market currency the chain
// starts with (GPU tokens and USDC, both 10^6 base units): about five
// GPU-hours of an H100 per full reliability step.
func DefaultReliabilityStepPayment() sdk.Coins {
	return sdk.NewCoins(sdk.NewInt64Coin(chaincfg.BondDenom, 10_000_000), sdk.NewInt64Coin(chaincfg.USDCDenom, 10_000_000))
}

// DefaultParams returns the default x/settlement parameters.
func DefaultParams() Params {
	return Params{
		EpochSeconds:              DefaultEpochSeconds,
		SampleIntervalSeconds:     DefaultSampleIntervalSeconds,
		MinSamplesRatioBps:        DefaultMinSamplesRatioBps,
		ProofGraceSeconds:         DefaultProofGraceSeconds,
		MaxMissedEpochs:           DefaultMaxMissedEpochs,
		TakeRateBps:               DefaultTakeRateBps,
		ProofRetention:            DefaultProofRetention,
		GpuModels:                 DefaultGPUModels(),
		AuditLatencySeconds:       DefaultAuditLatencySeconds,
		AuditCooldownSeconds:      DefaultAuditCooldownSeconds,
		MaxMissesPerBlock:         DefaultMaxMissesPerBlock,
		MaxPrunesPerBlock:         DefaultMaxPrunesPerBlock,
		MaxAuditStepsPerBlock:     DefaultMaxAuditStepsPerBlock,
		AuditMaxSeconds:           DefaultAuditMaxSeconds,
		AuditProveSeconds:         DefaultAuditProveSeconds,
		AuditSamples:              DefaultAuditSamples,
		AuditValiditySeconds:      DefaultAuditValiditySeconds,
		AuditRequestFee:           DefaultAuditRequestFee(),
		RandomAuditsPerDraw:       DefaultRandomAuditsPerDraw,
		RandomAuditIntervalBlocks: DefaultRandomAuditIntervalBlocks,
		ExpectedBlockMillis:       DefaultExpectedBlockMillis,
		HaltGapSeconds:            DefaultHaltGapSeconds,
		ReliabilityStepPayment:    DefaultReliabilityStepPayment(),
		MissWindowEpochs:          DefaultMissWindowEpochs,
	}
}

// Validate checks every field; the error wraps ErrInvalidParams and names the field.
func (p Params) Validate() error {
	for _, err := range []error{
		check.Seconds("epoch_seconds", p.EpochSeconds),
		check.Seconds("sample_interval_seconds", p.SampleIntervalSeconds),
		check.NonZeroBps("min_samples_ratio_bps", p.MinSamplesRatioBps),
		check.Seconds("proof_grace_seconds", p.ProofGraceSeconds),
		check.Positive("max_missed_epochs", p.MaxMissedEpochs),
		validateTakeRate(p.TakeRateBps),
		check.Positive("proof_retention", p.ProofRetention),
		validateGPUModels(p.GpuModels),
		check.Seconds("audit_latency_seconds", p.AuditLatencySeconds),
		check.Seconds("audit_cooldown_seconds", p.AuditCooldownSeconds),
		check.Positive("max_misses_per_block", p.MaxMissesPerBlock),
		check.Positive("max_prunes_per_block", p.MaxPrunesPerBlock),
		check.Positive("max_audit_steps_per_block", p.MaxAuditStepsPerBlock),
		check.Seconds("audit_max_seconds", p.AuditMaxSeconds),
		check.Seconds("audit_prove_seconds", p.AuditProveSeconds),
		validateAuditSamples(p.AuditSamples),
		check.Seconds("audit_validity_seconds", p.AuditValiditySeconds),
		validateFeeCoins("audit_request_fee", p.AuditRequestFee),
		check.Positive("random_audit_interval_blocks", p.RandomAuditIntervalBlocks),
		check.Positive("expected_block_millis", p.ExpectedBlockMillis),
		check.Seconds("halt_gap_seconds", p.HaltGapSeconds),
		validateStepPayment(p.ReliabilityStepPayment),
		validateMissWindow(p.MissWindowEpochs, p.MaxMissedEpochs),
	} {
		if err != nil {
			return errorsmod.Wrap(ErrInvalidParams, err.Error())
		}
	}
	if p.SampleIntervalSeconds > p.EpochSeconds {
		return errorsmod.Wrapf(ErrInvalidParams, "sample_interval_seconds %d must not exceed epoch_seconds %d", p.SampleIntervalSeconds, p.EpochSeconds)
	}
	if p.RandomAuditsPerDraw > MaxRandomAuditsPerDraw {
		return errorsmod.Wrapf(ErrInvalidParams, "random_audits_per_draw %d exceeds %d", p.RandomAuditsPerDraw, MaxRandomAuditsPerDraw)
	}
	// Every model's audit must fit audit_max_seconds: the deadline rule
	// (AuditPlan) never gives less than halt_gap + the expected time.
	for _, m := range p.GpuModels {
		plan, err := p.AuditPlan(m)
		if err != nil {
			return errorsmod.Wrapf(ErrInvalidParams, "gpu_models: %v", err)
		}
		if plan.Allowance > p.AuditMax() {
			return errorsmod.Wrapf(ErrInvalidParams, "%s's audit needs %s to its deadline, above audit_max_seconds %d",
				m.Model, plan.Allowance, p.AuditMaxSeconds)
		}
	}
	return nil
}

// MaxRandomAuditsPerDraw bounds the chain's random audits per draw (each
// costs a bounded walk of the GPU registry).
const MaxRandomAuditsPerDraw = 16

// validateAuditSamples keeps the samples in 1..MaxAuditSamples.
func validateAuditSamples(n uint32) error {
	if n == 0 || n > MaxAuditSamples {
		return fmt.Errorf("audit_samples must be in 1..%d, got %d", MaxAuditSamples, n)
	}
	return nil
}

// validateFeeCoins requires valid, sorted, positive coins.
func validateFeeCoins(name string, c sdk.Coins) error {
	if err := c.Validate(); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// Epoch is the length of a proof epoch.
func (p Params) Epoch() time.Duration { return check.Duration(p.EpochSeconds) }

// SampleInterval is how often the agent samples each GPU.
func (p Params) SampleInterval() time.Duration { return check.Duration(p.SampleIntervalSeconds) }

// ProofGrace is how long after an epoch ends its proof may still land.
func (p Params) ProofGrace() time.Duration { return check.Duration(p.ProofGraceSeconds) }

// AuditCooldown is the least time between two audits of one GPU.
func (p Params) AuditCooldown() time.Duration { return check.Duration(p.AuditCooldownSeconds) }

// Retention is how long a record of an epoch of epochSeconds is kept:
// proof_retention epochs, saturating (at about 146 years) instead of
// wrapping when governance sets a huge retention.
func (p Params) Retention(epochSeconds uint64) time.Duration {
	const maxSeconds = uint64(1<<62) / uint64(time.Second)
	if epochSeconds != 0 && p.ProofRetention > maxSeconds/epochSeconds {
		return time.Duration(maxSeconds) * time.Second
	}
	return time.Duration(p.ProofRetention*epochSeconds) * time.Second
}

// AuditMax is the longest an audit may run to its deadline.
func (p Params) AuditMax() time.Duration { return check.Duration(p.AuditMaxSeconds) }

// AuditProve is how long after the root the openings may come.
func (p Params) AuditProve() time.Duration { return check.Duration(p.AuditProveSeconds) }

// AuditValidity is how long an audit pass counts.
func (p Params) AuditValidity() time.Duration { return check.Duration(p.AuditValiditySeconds) }

// ExpectedBlock is the network's normal block time.
func (p Params) ExpectedBlock() time.Duration {
	return time.Duration(min(p.ExpectedBlockMillis, uint64(1<<62)/uint64(time.Millisecond))) * time.Millisecond
}

// validateTakeRate allows a zero fee but not 100%, which would pay providers nothing.
func validateTakeRate(bps uint32) error {
	if bps >= check.MaxBps {
		return fmt.Errorf("take_rate_bps must be below %d, got %d", check.MaxBps, bps)
	}
	return nil
}

// validateGPUModels requires a strictly sorted table (binary search, canonical
// genesis) of physically sensible entries.
func validateGPUModels(models []GPUModel) error {
	for i, m := range models {
		if err := m.Validate(); err != nil {
			return fmt.Errorf("gpu_models[%d]: %w", i, err)
		}
		if i > 0 && models[i-1].Model >= m.Model {
			return fmt.Errorf("gpu_models must be sorted by model and unique: %q after %q", m.Model, models[i-1].Model)
		}
	}
	return nil
}

// Validate checks one plausibility-table entry.
func (m GPUModel) Validate() error {
	switch {
	case m.Model == "":
		return fmt.Errorf("model must not be empty")
	case len(m.Model) > MaxModelNameLength:
		return fmt.Errorf("model must be at most %d bytes, got %d", MaxModelNameLength, len(m.Model))
	case m.IdleW == 0:
		return fmt.Errorf("%s: idle_w must be positive", m.Model)
	case m.MaxW <= m.IdleW:
		return fmt.Errorf("%s: max_w %d must exceed idle_w %d", m.Model, m.MaxW, m.IdleW)
	case m.MemoryMib == 0:
		return fmt.Errorf("%s: memory_mib must be positive", m.Model)
	case m.MemoryBandwidthGbps == 0:
		return fmt.Errorf("%s: memory_bandwidth_gbps must be positive", m.Model)
	}
	for _, r := range m.Model {
		if r < 0x20 || r > 0x7e {
			return fmt.Errorf("model %q must be printable ASCII", m.Model)
		}
	}
	return nil
}

// HeaderRetention is how long block headers stay available as proof
// challenges: a challenge lies inside an epoch's window, and the proof may
// arrive up to proof_grace after the window ends.
func (p Params) HeaderRetention() time.Duration { return p.Epoch() + p.ProofGrace() }

// GPUModel returns the plausibility figures of a model, if the table has it.
func (p Params) GPUModel(model string) (GPUModel, bool) {
	for _, m := range p.GpuModels {
		if m.Model == model {
			return m, true
		}
	}
	return GPUModel{}, false
}

// MinSamples is the samples a GPU needs in a window of the given length:
// ceil(min_samples_ratio × window / sample_interval), at least 1.
func (p Params) MinSamples(window time.Duration) uint64 {
	return minSamples(window, p.SampleInterval(), p.MinSamplesRatioBps)
}

func minSamples(window, interval time.Duration, ratioBps uint32) uint64 {
	intervals := uint64(window / interval)
	need := (intervals*uint64(ratioBps) + 9999) / 10_000
	return max(need, 1)
}

// validateStepPayment requires valid, sorted, positive coins.
func validateStepPayment(c sdk.Coins) error {
	if err := c.Validate(); err != nil {
		return fmt.Errorf("reliability_step_payment: %w", err)
	}
	return nil
}

// HaltGap is the longest pause between blocks that is not a chain halt.
func (p Params) HaltGap() time.Duration { return check.Duration(p.HaltGapSeconds) }
