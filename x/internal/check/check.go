package check

import (
	"fmt"
	"time"

	sdk "github.com/cosmos/cosmos-sdk/types"
)

// MaxBps is 100% in basis points.
const MaxBps = 10_000

// Bps checks that v is a ratio in basis points (0..10000).
func Bps(field string, v uint32) error {
	if v > MaxBps {
		return fmt.Errorf("%s must be at most %d bps, got %d", field, MaxBps, v)
	}
	return nil
}

// NonZeroBps checks a ratio in basis points that must not be 0 (a slash of
// 0 bps would make the rule a no-op): 1..10000.
func NonZeroBps(field string, v uint32) error {
	if v == 0 {
		return fmt.Errorf("%s must be greater than 0", field)
	}
	return Bps(field, v)
}

// MaxSeconds bounds every duration param (100 years): far beyond any real
// setting, and small enough that seconds × time.Second never overflows.
const MaxSeconds uint64 = 100 * 365 * 24 * 3600

// Seconds checks a duration param, which is whole seconds on chain
// (docs/design.md#determinism): positive and at most MaxSeconds.
func Seconds(field string, s uint64) error {
	if s == 0 {
		return fmt.Errorf("%s must be greater than 0", field)
	}
	if s > MaxSeconds {
		return fmt.Errorf("%s must be at most %d (100 years), got %d", field, MaxSeconds, s)
	}
	return nil
}

// Duration converts a checked Seconds value to a time.Duration.
func Duration(s uint64) time.Duration {
	return time.Duration(s) * time.Second
}

// PositiveCoin checks that c is a valid coin with a positive amount.
func PositiveCoin(field string, c sdk.Coin) error {
	if err := c.Validate(); err != nil {
		return fmt.Errorf("%s: %w", field, err)
	}
	if !c.IsPositive() {
		return fmt.Errorf("%s must be positive, got %s", field, c)
	}
	return nil
}

// Positive checks that a count or bound is not zero.
func Positive[T ~uint32 | ~uint64](field string, v T) error {
	if v == 0 {
		return fmt.Errorf("%s must be greater than 0", field)
	}
	return nil
}

// MaxGPUsPerLease is the most GPUs one lease may hold: x/settlement's proof
// of a lease's epoch carries one entry per GPU and refuses more than this,
// so a larger lease could never be proven and its honest provider would be
// slashed. Every param that sizes a lease (x/auction's max_gpus_per_job,
// x/offer's max_gpus_per_offer, whose offers leases are cut from) is bounded
// by it.
const MaxGPUsPerLease = 64

// GPUsPerLease checks a param that bounds the GPUs of a lease: 1..MaxGPUsPerLease.
func GPUsPerLease(field string, v uint32) error {
	if v == 0 {
		return fmt.Errorf("%s must be greater than 0", field)
	}
	if v > MaxGPUsPerLease {
		return fmt.Errorf("%s must be at most %d (the GPUs one lease's proof can carry), got %d", field, MaxGPUsPerLease, v)
	}
	return nil
}
