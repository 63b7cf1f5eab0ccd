// Package keeper looks like a module keeper, which the default scope checks.
package keeper

import "time"

// Keeper is a module keeper.
type Keeper struct {
	score float64 // want `float64 is non-deterministic`
}

// Touch reads the wall clock.
func (k Keeper) Touch() int64 {
	return time.Now().Unix() // want `time\.Now is non-deterministic in state-machine code: use ctx\.BlockTime\(\)`
}
