package types_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/x/provider/types"
)

var h100 = types.GPUInfo{
	Uuid:          "GPU-5f1c6c2a-9b8e-4c3d-a1f0-0123456789ab",
	Model:         "NVIDIA H100 80GB HBM3",
	MemoryMib:     81559,
	PciBusId:      "00000000:3B:00.0",
	DriverVersion: "550.54.15",
	VbiosVersion:  "96.00.89.00.01",
}

// TestFingerprintGolden pins the on-chain fingerprint so the agent, indexers
// and any other implementation can check theirs against it.
func TestFingerprintGolden(t *testing.T) {
	// Computed independently (Python hashlib and struct.pack, per the README).
	require.Equal(t, "97f05a3b52b7a39b95bae21f34529fc682bfd96c8aa5f2ce36ca1573e9296426", h100.Fingerprint())
	other := h100
	other.VbiosVersion = "96.00.89.00.02"
	require.NotEqual(t, h100.Fingerprint(), other.Fingerprint(), "every field counts")
	// Length prefixes keep field boundaries: moving a character between
	// fields changes the fingerprint.
	a, b := h100, h100
	a.DriverVersion, a.VbiosVersion = "550.54.1", "596.00.89.00.01"
	b.DriverVersion, b.VbiosVersion = "550.54.15", "96.00.89.00.01"
	require.NotEqual(t, a.Fingerprint(), b.Fingerprint())
}

func TestValidateGPUUUID(t *testing.T) {
	require.NoError(t, types.ValidateGPUUUID(h100.Uuid))
	for _, bad := range []string{
		"", "GPU-", "gpu-5f1c6c2a-9b8e-4c3d-a1f0-0123456789ab", "GPU-5F1C6C2A-9B8E-4C3D-A1F0-0123456789AB",
		"MIG-5f1c6c2a-9b8e-4c3d-a1f0-0123456789ab", "GPU-5f1c6c2a9b8e-4c3d-a1f0-0123456789ab-",
		"GPU-5f1c6c2a-9b8e-4c3d-a1f0-0123456789a", "GPU-5f1c6c2a-9b8e-4c3d-a1f0-0123456789abc",
		"GPU-5f1c6c2g-9b8e-4c3d-a1f0-0123456789ab", "GPU-5f1c6c2a_9b8e_4c3d_a1f0_0123456789ab",
	} {
		require.ErrorIs(t, types.ValidateGPUUUID(bad), types.ErrInvalidGPUUUID, bad)
	}
}

func TestGPUInfoValidate(t *testing.T) {
	require.NoError(t, h100.Validate())
	short := h100
	short.PciBusId = "0000:3b:00.0" // 4-digit domain, lower-case hex
	require.NoError(t, short.Validate())
	for name, modify := range map[string]func(*types.GPUInfo){
		"memory 0":         func(g *types.GPUInfo) { g.MemoryMib = 0 },
		"no model":         func(g *types.GPUInfo) { g.Model = "" },
		"model too long":   func(g *types.GPUInfo) { g.Model = strings.Repeat("A", 97) },
		"model not ASCII":  func(g *types.GPUInfo) { g.Model = "NVIDIA H100 ™" },
		"no driver":        func(g *types.GPUInfo) { g.DriverVersion = "" },
		"vbios newline":    func(g *types.GPUInfo) { g.VbiosVersion = "96\n" },
		"bus without func": func(g *types.GPUInfo) { g.PciBusId = "00000000:3B:00" },
		"bus 3-digit dom":  func(g *types.GPUInfo) { g.PciBusId = "000:3B:00.0" },
		"bus non-hex":      func(g *types.GPUInfo) { g.PciBusId = "0000000G:3B:00.0" },
		"bus trailing":     func(g *types.GPUInfo) { g.PciBusId = "00000000:3B:00.0 " },
		"bus empty":        func(g *types.GPUInfo) { g.PciBusId = "" },
	} {
		g := h100
		modify(&g)
		require.ErrorIs(t, g.Validate(), types.ErrInvalidGPU, name)
	}
	bad := h100
	bad.Uuid = "GPU-1"
	require.ErrorIs(t, bad.Validate(), types.ErrInvalidGPUUUID)
}
