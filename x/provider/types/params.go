package types

import (
	"time"

	errorsmod "cosmossdk.io/errors"
	"cosmossdk.io/math"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/internal/check"
)

// Default parameter values (DESIGN.md §4.1).
var (
	// DefaultMinStakePerGPU is 100 GPU tokens per committed GPU.
	DefaultMinStakePerGPU = math.NewInt(100_000_000)
	// DefaultUnbondingPeriod is two weeks.
	DefaultUnbondingPeriod = 336 * time.Hour
	// DefaultJailDuration is one hour.
	DefaultJailDuration = time.Hour
	// DefaultSlashFraud is half the stake.
	DefaultSlashFraud = math.LegacyNewDecWithPrec(5, 1)
	// DefaultSlashLiveness is 1% of the stake.
	DefaultSlashLiveness = math.LegacyNewDecWithPrec(1, 2)
	// DefaultFraudReporterShare is half of what a slash takes.
	DefaultFraudReporterShare = math.LegacyNewDecWithPrec(5, 1)
)

const (
	// DefaultInitialReliabilityBps is the reliability a new provider starts with.
	DefaultInitialReliabilityBps uint32 = 9000
	// DefaultMaxGPUsPerProvider bounds one provider's registered GPUs.
	DefaultMaxGPUsPerProvider uint32 = 1024
)

// DefaultParams returns the default x/provider parameters, staked in the
// chain's bond denom.
func DefaultParams() Params {
	return Params{
		MinStakePerGpu:        sdk.NewCoin(sdk.DefaultBondDenom, DefaultMinStakePerGPU),
		UnbondingPeriod:       DefaultUnbondingPeriod,
		JailDuration:          DefaultJailDuration,
		SlashFraud:            DefaultSlashFraud,
		SlashLiveness:         DefaultSlashLiveness,
		FraudReporterShare:    DefaultFraudReporterShare,
		InitialReliabilityBps: DefaultInitialReliabilityBps,
		MaxGpusPerProvider:    DefaultMaxGPUsPerProvider,
	}
}

// Validate checks every field; the error wraps ErrInvalidParams and names the field.
func (p Params) Validate() error {
	for _, err := range []error{
		check.PositiveCoin("min_stake_per_gpu", p.MinStakePerGpu),
		check.WholeSeconds("unbonding_period", p.UnbondingPeriod),
		check.WholeSeconds("jail_duration", p.JailDuration),
		check.Fraction("slash_fraud", p.SlashFraud, true),
		check.Fraction("slash_liveness", p.SlashLiveness, true),
		check.Fraction("fraud_reporter_share", p.FraudReporterShare, false),
		check.Bps("initial_reliability_bps", p.InitialReliabilityBps),
		check.Positive("max_gpus_per_provider", p.MaxGpusPerProvider),
	} {
		if err != nil {
			return errorsmod.Wrap(ErrInvalidParams, err.Error())
		}
	}
	return nil
}
