// Package cli is client code, outside the default scope.
package cli

import (
	"math/rand"
	"time"
)

// Display may use floats, the clock and goroutines.
func Display(m map[string]int) float64 {
	go func() {}()
	for k := range m {
		_ = k
	}
	return float64(time.Now().Unix()) + float64(rand.Intn(3))
}
