// Package types looks like module types, which the default scope checks.
package types

import "math/rand" // want `import of math/rand is non-deterministic`

// Jitter uses local randomness.
func Jitter() int { return rand.Intn(10) }
