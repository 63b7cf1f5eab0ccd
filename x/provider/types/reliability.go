package types

import (
	"fmt"

	"github.com/idlegpu/idlegpu/x/internal/check"
)

// MaxReachableReliabilityBps is the highest reliability a provider that
// starts below it can reach. An epoch moves reliability by at most one step
// of the keeper's EMA, r ← r − ⌊r/64⌋ + ⌊outcome/64⌋ in integer bps (a
// weighted epoch by a fraction of that step). A proven epoch adds
// ⌊10000/64⌋ = 156, so r rises only while ⌊r/64⌋ < 156 and stops at
// 156 × 64 = 9984, however many epochs are proven (every r from 9984 to
// 10000 is a fixed point). A tier floor above it would admit no provider that
// ever started or fell below it.
const MaxReachableReliabilityBps uint32 = 9984

// ValidateReliability checks that reliability_bps plus its carry (in
// 1/10000 bps, below one bps) lies in [0, 10000] bps.
func (r Reputation) ValidateReliability() error {
	if err := check.Bps("reliability_bps", r.ReliabilityBps); err != nil {
		return err
	}
	if c := r.ReliabilityCarry; c >= check.MaxBps || (r.ReliabilityBps == check.MaxBps && c > 0) {
		return fmt.Errorf("reliability_carry %d: want below %d, keeping %d bps + carry at most %d", c, check.MaxBps, r.ReliabilityBps, check.MaxBps)
	}
	return nil
}
