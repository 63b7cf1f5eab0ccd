// Package maprange exercises the map-iteration rule.
package maprange

import (
	"maps"
	"slices"
)

// Balances is a named map type.
type Balances map[string]int64

// MapLike constrains a type parameter to maps.
type MapLike interface {
	~map[string]int64
}

// Sum ranges over a map.
func Sum(m map[string]int64) (t int64) {
	for _, v := range m { // want `range over map is non-deterministic in state-machine code: map iteration order is random`
		t += v
	}
	return t
}

// SumNamed ranges over a named map type.
func SumNamed(b Balances) (t int64) {
	for k := range b { // want `range over map is non-deterministic`
		t += b[k]
	}
	return t
}

// SumPtr ranges over a dereferenced map pointer.
func SumPtr(b *Balances) (t int64) {
	for _, v := range *b { // want `range over map is non-deterministic`
		t += v
	}
	return t
}

// First ranges over map iterators from the std maps package.
func First(m map[string]int64) (string, int64) {
	for k := range maps.Keys(m) { // want `range over maps\.Keys is non-deterministic in state-machine code`
		return k, 0
	}
	for v := range maps.Values(m) { // want `range over maps\.Values is non-deterministic`
		return "", v
	}
	for k, v := range maps.All(m) { // want `range over maps\.All is non-deterministic`
		return k, v
	}
	return "", 0
}

// SumGeneric ranges over a type parameter whose core type is a map.
func SumGeneric[M ~map[string]int64](m M) (t int64) {
	for _, v := range m { // want `range over map is non-deterministic`
		t += v
	}
	return t
}

// SumConstraint ranges over a type parameter with a named map constraint.
func SumConstraint[M MapLike](m M) (t int64) {
	for _, v := range m { // want `range over map is non-deterministic`
		t += v
	}
	return t
}

// Deterministic shows the accepted forms.
func Deterministic(m map[string]int64, s []int64, ch chan int64) (t int64) {
	for _, k := range slices.Sorted(maps.Keys(m)) {
		t += m[k]
	}
	n := 0
	for range m { // the order of nothing cannot leak
		n++
	}
	for _, v := range s {
		t += v
	}
	for i := range 10 {
		t += int64(i)
	}
	for v := range ch {
		t += v
	}
	for i := range "abc" {
		t += int64(i)
	}
	return t + int64(n)
}
