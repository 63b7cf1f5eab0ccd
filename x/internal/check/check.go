package check

import (
	"fmt"
	"time"

	"cosmossdk.io/math"

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

// Fraction checks that d is a ratio in [0, 1]; nonZero says whether 0 is
// excluded (a slash fraction of 0 would make the rule a no-op).
func Fraction(field string, d math.LegacyDec, nonZero bool) error {
	switch {
	case d.IsNil():
		return fmt.Errorf("%s must be set", field)
	case d.IsNegative():
		return fmt.Errorf("%s must not be negative, got %s", field, d)
	case d.GT(math.LegacyOneDec()):
		return fmt.Errorf("%s must be at most 1, got %s", field, d)
	case nonZero && d.IsZero():
		return fmt.Errorf("%s must be greater than 0", field)
	}
	return nil
}

// WholeSeconds checks that d is positive and a whole number of seconds:
// durations are whole seconds on chain (DESIGN §3a).
func WholeSeconds(field string, d time.Duration) error {
	if d <= 0 {
		return fmt.Errorf("%s must be positive, got %s", field, d)
	}
	if d%time.Second != 0 {
		return fmt.Errorf("%s must be whole seconds, got %s", field, d)
	}
	return nil
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
