package clock

import . "time"

// dotNow reads the clock through a dot import.
func dotNow() Time {
	return Now() // want `time\.Now is non-deterministic`
}
