package audit

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// The embedded PTX declares both kernels the host launches (the fake
// driver checks the same at load time; the real one would fail the
// lookup).
func TestPTXDeclaresKernels(t *testing.T) {
	for _, k := range []string{buildKernel, walkKernel} {
		require.Contains(t, memwalkPTX, ".visible .entry "+k+"(")
	}
}
