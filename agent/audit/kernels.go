package audit

import _ "embed"

// memwalkPTX is idlegpu/memwalk/v1's two kernels as PTX, generated from
// kernels/memwalk.ll by `make audit-ptx`; the driver JIT-compiles it for
// the GPU at hand, so neither the build nor the provider needs nvcc.
//
//go:embed kernels/memwalk.ptx
var memwalkPTX string

// The kernels' entry names in memwalkPTX.
const (
	// buildKernel fills table items [first, end), one thread per item:
	// (table, cache, first, end).
	buildKernel = "memwalk_build"
	// walkKernel runs lanes through a range of segments, one thread per
	// lane: (table, states, out, items, count, seg_first, seg_count,
	// seg_steps).
	walkKernel = "memwalk_walk"
)
