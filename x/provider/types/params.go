package types

import (
	"time"

	errorsmod "cosmossdk.io/errors"
	"cosmossdk.io/math"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/internal/check"
)

// DefaultMinStakePerGPU is 100 GPU tokens per committed GPU (docs/design.md#params).
var DefaultMinStakePerGPU = math.NewInt(100_000_000)

// Default parameter values (docs/design.md#params).
const (
	// DefaultUnbondingPeriodSeconds is two weeks.
	DefaultUnbondingPeriodSeconds uint64 = 336 * 3600
	// DefaultJailDurationSeconds is one hour.
	DefaultJailDurationSeconds uint64 = 3600
	// DefaultSlashFraudBps takes half the stake for fraud.
	DefaultSlashFraudBps uint32 = 5000
	// DefaultSlashLivenessBps takes 1% of the stake for a failed lease.
	DefaultSlashLivenessBps uint32 = 100
	// DefaultFraudReporterShareBps pays half of what a slash takes to the beneficiary.
	DefaultFraudReporterShareBps uint32 = 5000
	// DefaultInitialReliabilityBps is the reliability a new provider starts with.
	DefaultInitialReliabilityBps uint32 = 9000
	// DefaultMaxGPUsPerProvider bounds one provider's registered GPUs.
	DefaultMaxGPUsPerProvider uint32 = 1024
	// DefaultMaxGPUsPerMsg bounds the GPUs of one MsgRegisterGPUs (a full
	// 8-GPU server many times over, well inside a block's gas).
	DefaultMaxGPUsPerMsg uint32 = 64
	// DefaultMaxAgents bounds a provider's agent addresses.
	DefaultMaxAgents uint32 = 8
	// DefaultMaxUnbondingEntries bounds a provider's open unbondings (the
	// SDK's staking module allows 7 per delegation too).
	DefaultMaxUnbondingEntries uint32 = 7
	// DefaultMaxUnbondingsPerBlock bounds the unbondings one EndBlock completes.
	DefaultMaxUnbondingsPerBlock uint32 = 100
)

// DefaultParams returns the default x/provider parameters, staked in the
// chain's bond denom.
func DefaultParams() Params {
	return Params{
		MinStakePerGpu:         sdk.NewCoin(sdk.DefaultBondDenom, DefaultMinStakePerGPU),
		UnbondingPeriodSeconds: DefaultUnbondingPeriodSeconds,
		JailDurationSeconds:    DefaultJailDurationSeconds,
		SlashFraudBps:          DefaultSlashFraudBps,
		SlashLivenessBps:       DefaultSlashLivenessBps,
		FraudReporterShareBps:  DefaultFraudReporterShareBps,
		InitialReliabilityBps:  DefaultInitialReliabilityBps,
		MaxGpusPerProvider:     DefaultMaxGPUsPerProvider,
		MaxGpusPerMsg:          DefaultMaxGPUsPerMsg,
		MaxAgents:              DefaultMaxAgents,
		MaxUnbondingEntries:    DefaultMaxUnbondingEntries,
		MaxUnbondingsPerBlock:  DefaultMaxUnbondingsPerBlock,
	}
}

// Validate checks every field; the error wraps ErrInvalidParams and names the field.
func (p Params) Validate() error {
	for _, err := range []error{
		check.PositiveCoin("min_stake_per_gpu", p.MinStakePerGpu),
		check.Seconds("unbonding_period_seconds", p.UnbondingPeriodSeconds),
		check.Seconds("jail_duration_seconds", p.JailDurationSeconds),
		check.NonZeroBps("slash_fraud_bps", p.SlashFraudBps),
		check.NonZeroBps("slash_liveness_bps", p.SlashLivenessBps),
		check.Bps("fraud_reporter_share_bps", p.FraudReporterShareBps),
		// 0 would start every new provider below every tier for good.
		check.NonZeroBps("initial_reliability_bps", p.InitialReliabilityBps),
		check.Positive("max_gpus_per_provider", p.MaxGpusPerProvider),
		check.Positive("max_gpus_per_msg", p.MaxGpusPerMsg),
		check.Positive("max_unbonding_entries", p.MaxUnbondingEntries),
		check.Positive("max_unbondings_per_block", p.MaxUnbondingsPerBlock),
	} {
		if err != nil {
			return errorsmod.Wrap(ErrInvalidParams, err.Error())
		}
	}
	return nil
}

// ValidateUpdate checks next as the params that replace p: valid, and
// staked in the same denom. Every provider's stake and unbonding entries
// are coins of the stake denom (zero coins too, from registration on), so
// a new denom would make bonding, unbonding and slashing mix denoms;
// changing it needs a chain upgrade that migrates them.
func (p Params) ValidateUpdate(next Params) error {
	if err := next.Validate(); err != nil {
		return err
	}
	if next.StakeDenom() != p.StakeDenom() {
		return errorsmod.Wrapf(ErrInvalidParams, "min_stake_per_gpu: the stake denom is %s and cannot change to %s",
			p.StakeDenom(), next.StakeDenom())
	}
	return nil
}

// StakeDenom is the denom stake is bonded in.
func (p Params) StakeDenom() string { return p.MinStakePerGpu.Denom }

// RequiredStake is the stake n committed GPUs need.
func (p Params) RequiredStake(n uint32) math.Int {
	return p.MinStakePerGpu.Amount.MulRaw(int64(n))
}

// UnbondingPeriod is how long unbonding stake stays slashable.
func (p Params) UnbondingPeriod() time.Duration { return check.Duration(p.UnbondingPeriodSeconds) }

// JailDuration is how long a liveness fault jails a provider.
func (p Params) JailDuration() time.Duration { return check.Duration(p.JailDurationSeconds) }
