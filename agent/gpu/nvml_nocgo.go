//go:build !cgo

package gpu

import "fmt"

// NewNVMLDefault reports ErrUnavailable: go-nvml needs cgo to load the
// driver's library, and this binary was built without it.
func NewNVMLDefault() (Backend, error) {
	return nil, fmt.Errorf("%w: nvml: built without cgo", ErrUnavailable)
}
