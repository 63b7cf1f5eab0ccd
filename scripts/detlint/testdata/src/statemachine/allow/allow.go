// Package allow exercises the //detlint:allow directive.
package allow

import "time"

// SameLine is silenced by a directive on the same line.
func SameLine() time.Time {
	return time.Now() //detlint:allow only logged, never written to state
}

// LineAbove is silenced by a directive on the line directly above.
func LineAbove(f func()) {
	//detlint:allow telemetry goroutine, touches no state
	go f()
}

// NoReason has a directive without a reason: the directive is reported and
// does not silence the finding.
func NoReason() time.Time {
	// want +1 `detlint:allow needs a reason` `time\.Now is non-deterministic`
	return time.Now() //detlint:allow
}

// NoReasonAbove is the same with the directive on its own line.
func NoReasonAbove() time.Time {
	// want +1 `detlint:allow needs a reason`
	//detlint:allow
	return time.Now() // want `time\.Now is non-deterministic`
}

// TooFar has a directive two lines above, which does not reach.
func TooFar() time.Time {
	//detlint:allow a reason, but too far from the finding
	_ = 0
	return time.Now() // want `time\.Now is non-deterministic`
}

// NotADirective uses a different word, which is not a directive.
func NotADirective() time.Time {
	return time.Now() //detlint:allowed // want `time\.Now is non-deterministic`
}

// Float is silenced like any other finding.
func Float(n int64) int64 {
	return int64(float64(n)) //detlint:allow exact for n < 2^53, checked by ValidateBasic
}
