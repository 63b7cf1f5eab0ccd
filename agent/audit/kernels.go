package audit

import _ "embed"

// matmulPTX is idlegpu/matmul-u32/v1's round kernel as PTX, generated from
// kernels/matmul_u32.ll by `make audit-ptx`; the driver JIT-compiles it for
// the GPU at hand, so neither the build nor the provider needs nvcc.
//
//go:embed kernels/matmul_u32.ptx
var matmulPTX string

// matmulKernel is the kernel's entry name in matmulPTX.
const matmulKernel = "matmul_u32_round"
