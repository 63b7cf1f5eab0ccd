// Package randimport exercises the randomness-import rule.
package randimport

import (
	crand "crypto/rand"   // want `import of crypto/rand is non-deterministic in state-machine code: derive randomness from the block header`
	"math/rand"           // want `import of math/rand is non-deterministic in state-machine code`
	randv2 "math/rand/v2" // want `import of math/rand/v2 is non-deterministic in state-machine code`
)

// Pick uses every source once so the imports are used.
func Pick(n int) int {
	b := make([]byte, 1)
	_, _ = crand.Read(b)
	return rand.Intn(n) + randv2.IntN(n) + int(b[0])
}
