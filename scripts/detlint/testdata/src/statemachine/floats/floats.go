// Package floats exercises the floating-point rule.
package floats

import (
	"math"
	"time"
)

// Rate is a named float type.
type Rate float64 // want `float64 is non-deterministic in state-machine code: floating-point results can differ between platforms`

// Weights is a slice of floats.
type Weights []float32 // want `float32 is non-deterministic`

// Params has float fields.
type Params struct {
	Ratio  float64 // want `float64 is non-deterministic`
	Count  int64
	Shares map[string]float32 // want `float32 is non-deterministic`
}

// score is a package-level float.
var score float64 // want `float64 is non-deterministic`

// Scale takes a float parameter.
func Scale(x float64) int64 { // want `float64 is non-deterministic`
	return int64(x)
}

// Half returns a float.
func Half(n int64) (h float64) { // want `float64 is non-deterministic`
	return
}

// Convert converts to float.
func Convert(n int64) int64 {
	return int64(float64(n) * 1.5) // want `conversion to float64 is non-deterministic`
}

// Inferred declares a float without writing its type.
func Inferred() int64 {
	x := 2.5 // want `x has type float64, which is non-deterministic`
	return int64(x)
}

// Converted declares a float from a conversion: one finding, not two.
func Converted(n int64) int64 {
	var y = float32(n) // want `conversion to float32 is non-deterministic`
	return int64(y)
}

// Root calls a float function from another package.
func Root(n int64) int64 {
	r := math.Sqrt(2) // want `math\.Sqrt involves float64, which is non-deterministic`
	return int64(r) * n
}

// Seconds calls a float method from another package.
func Seconds(d time.Duration) int64 {
	return int64(d.Seconds()) // want `Seconds involves float64`
}

// UsesNamed takes a named float type.
func UsesNamed(r Rate) int64 { // want `type Rate is built on float64, which is non-deterministic`
	return int64(r)
}

// ToRate converts to a named float type.
func ToRate(n int64) int64 {
	return int64(Rate(n)) // want `conversion to Rate \(built on float64\) is non-deterministic`
}

// Sum ranges over floats declared elsewhere.
func Sum(ws Weights) (total int64) { // want `type Weights is built on float32`
	for _, w := range ws { // want `w has type float32`
		total += int64(w)
	}
	return total
}

// Literal builds a float slice.
func Literal() int {
	return len([]float64{1, 2}) // want `float64 is non-deterministic`
}

// Make allocates a float slice.
func Make(n int) int {
	return len(make([]float64, n)) // want `float64 is non-deterministic`
}

// Generic is constrained to floats.
func Generic[T ~float32 | ~float64](v T) T { // want `float32 is non-deterministic` `float64 is non-deterministic`
	return v
}

// Complex uses a complex type, which is built on floats.
func Complex() int {
	var c complex128 // want `complex128 is non-deterministic`
	_ = c
	return 0
}

// Micro is an untyped float constant that is an exact integer.
const Micro = 1e6

// supply is built from a float literal but is an integer.
var supply int64 = 21e6

// Scaled uses untyped float constants to build integers, which is fine.
func Scaled(n int64) int64 {
	return n*Micro*1e3 + supply + int64(math.MaxInt32)
}

// Ratio does integer arithmetic on a struct that has a float field.
func Ratio(p Params) int64 {
	return p.Count * 3 / 100
}
