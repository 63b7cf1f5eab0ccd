//go:build !cgo || !linux

package audit

import "fmt"

// DefaultCUDALibrary is the CUDA driver's library.
const DefaultCUDALibrary = "libcuda.so.1"

// CUDA is unavailable in a build without cgo.
type CUDA struct{}

// LoadCUDA reports ErrUnavailable: loading the driver needs cgo.
func LoadCUDA(string) (*CUDA, error) {
	return nil, fmt.Errorf("%w: built without cgo", ErrUnavailable)
}

// UUIDs is never reached.
func (*CUDA) UUIDs() ([]string, error) { return nil, ErrUnavailable }

// Open is never reached.
func (*CUDA) Open(string, string, ...string) (Session, error) { return nil, ErrUnavailable }
