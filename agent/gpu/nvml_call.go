//go:build cgo

package gpu

import (
	"fmt"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
)

// call runs one NVML getter and turns a non-SUCCESS return into an error
// that names the call and wraps the nvml.Return (so errors.Is can match
// e.g. nvml.ERROR_GPU_IS_LOST). A binding that does not implement the call
// (go-nvml's mocks panic on an unset Func) reads as
// ERROR_FUNCTION_NOT_FOUND instead of crashing the agent.
func call[T any](name string, f func() (T, nvml.Return)) (v T, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("nvml %s: not implemented by this binding (%v): %w", name, r, nvml.ERROR_FUNCTION_NOT_FOUND)
		}
	}()
	v, ret := f()
	if ret != nvml.SUCCESS {
		return v, fmt.Errorf("nvml %s: %w", name, ret)
	}
	return v, nil
}

// call0 is call for NVML functions that only return a status.
func call0(name string, f func() nvml.Return) error {
	_, err := call(name, func() (struct{}, nvml.Return) { return struct{}{}, f() })
	return err
}

// cString converts a NUL-terminated C char array as NVML fills it.
func cString(b []int8) string {
	out := make([]byte, 0, len(b))
	for _, c := range b {
		if c == 0 {
			break
		}
		out = append(out, byte(c))
	}
	return string(out)
}

// pciBusID prefers the full "00000000:3B:00.0" form and falls back to the
// legacy "0000:3B:00.0" one that old drivers fill alone; it is empty when
// NVML gives neither (go-nvml's ready mocks fill only PciDeviceId).
func pciBusID(p nvml.PciInfo) string {
	if s := cString(p.BusId[:]); s != "" {
		return s
	}
	return cString(p.BusIdLegacy[:])
}

// cudaVersion formats NVML's CUDA driver version: 12040 is "12.4".
func cudaVersion(v int) string {
	return fmt.Sprintf("%d.%d", v/1000, v%1000/10)
}
