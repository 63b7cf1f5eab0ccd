package types_test

import (
	"testing"

	"github.com/idlegpu/idlegpu/x/provider/types"
)

// The validators take untrusted strings from every transaction: whatever
// comes in, they answer with nil or a typed error and never panic.
func FuzzValidateInputs(f *testing.F) {
	for _, s := range []string{"eu-de-fra1", "eu-west", "https://gpu.example.com:8443", "http://[::1", h100.Uuid, h100.PciBusId, "0000:3b:00.", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_ = types.ValidateRegion(s)
		_, _ = types.ValidateEndpoint(s)
		_ = types.ValidateMoniker(s)
		_ = types.ValidateCertHash(s, true)
		_ = types.ValidateGPUUUID(s)
		g := h100
		g.PciBusId, g.Model = s, s
		if g.Validate() == nil {
			_ = g.Fingerprint()
		}
	})
}
