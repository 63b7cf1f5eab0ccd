// Package clock exercises the wall-clock rule.
package clock

import "time"

// LocalNow reads the local clock.
func LocalNow() time.Time {
	return time.Now() // want `time\.Now is non-deterministic in state-machine code: use ctx\.BlockTime\(\)`
}

// Elapsed measures from the local clock.
func Elapsed(start time.Time) time.Duration {
	return time.Since(start) // want `time\.Since is non-deterministic in state-machine code: compute durations from ctx\.BlockTime\(\)`
}

// Remaining measures to the local clock.
func Remaining(deadline time.Time) time.Duration {
	return time.Until(deadline) // want `time\.Until is non-deterministic in state-machine code`
}

// clockFn stores the function instead of calling it, which is just as bad.
var clockFn = time.Now // want `time\.Now is non-deterministic`

// Expired compares block times only, which is deterministic.
func Expired(blockTime, deadline time.Time) bool {
	return blockTime.After(deadline) && blockTime.Sub(deadline) > time.Second
}

// FromUnix builds a time from integers, which is deterministic.
func FromUnix(sec int64) time.Time {
	return time.Unix(sec, 0).UTC().Add(24 * time.Hour)
}
