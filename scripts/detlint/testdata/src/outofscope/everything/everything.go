// Package everything is outside the scope: it uses every forbidden
// construct and detlint must stay silent.
package everything

import (
	crand "crypto/rand"
	"maps"
	"math"
	"math/rand"
	randv2 "math/rand/v2"
	"time"
)

// Score is a float.
var Score float64 = math.Sqrt(2)

// All does everything detlint forbids.
func All(m map[string]int) float64 {
	b := make([]byte, 1)
	_, _ = crand.Read(b)
	go func() {}()
	for k := range m {
		_ = k
	}
	for k := range maps.Keys(m) {
		_ = k
	}
	x := 1.5
	_ = time.Since(time.Now())
	return float64(rand.Intn(3)+randv2.IntN(3)) * x
}
