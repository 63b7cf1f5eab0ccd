package daemon

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/agent/config"
	offertypes "github.com/idlegpu/idlegpu/x/offer/types"
)

// The offer publishes what the agent will run (image prefixes, workloads by
// the chain's names) and, with the docker runner, the resources each GPU
// comes with; a change to any of them is republished.
func TestOfferTermsPublishImagePrefixesAndResources(t *testing.T) {
	const h100 = "NVIDIA H100 80GB HBM3"
	now := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	p := config.Default("").Policy
	p.ImagePrefixes = []string{"ghcr.io/acme/", "docker.io/library/"}
	p.Workloads = []string{"render", "training"}
	d := testDaemon(t, p)
	d.cfg.Runner = config.Runner{Backend: "docker", CPUCoresPerGPU: 16, MemoryMiBPerGPU: 131072, DiskGiBPerGPU: 500}

	terms, ok := d.terms(h100, now, 0)
	require.True(t, ok)
	require.Equal(t, []string{"ghcr.io/acme/", "docker.io/library/"}, terms.ImagePrefixes)
	require.Equal(t, uint32(offertypes.WORKLOAD_RENDER|offertypes.WORKLOAD_TRAINING), terms.Workloads)
	require.Equal(t, uint32(16), terms.CpuCoresPerGpu)
	require.Equal(t, uint64(131072), terms.MemoryMibPerGpu)
	require.Equal(t, uint64(500), terms.DiskGibPerGpu)
	params := offertypes.DefaultParams()
	params.PaymentDenoms = []string{"ugpu", "uusdc"}
	require.NoError(t, terms.Validate(params), "the chain takes what the agent publishes")
	require.True(t, offertypes.ImagePrefixesAllow(terms.ImagePrefixes, "ghcr.io/acme/train@sha256:00"))

	for name, edit := range map[string]func(*offertypes.OfferTerms){
		"prefixes":  func(h *offertypes.OfferTerms) { h.ImagePrefixes = nil },
		"cores":     func(h *offertypes.OfferTerms) { h.CpuCoresPerGpu = 8 },
		"memory":    func(h *offertypes.OfferTerms) { h.MemoryMibPerGpu = 1 },
		"disk":      func(h *offertypes.OfferTerms) { h.DiskGibPerGpu = 1 },
		"workloads": func(h *offertypes.OfferTerms) { h.Workloads = uint32(offertypes.WORKLOAD_TRAINING) },
	} {
		have := terms
		edit(&have)
		require.False(t, sameTerms(have, terms, now), name)
	}
	require.True(t, sameTerms(terms, terms, now))

	// The process runner enforces no limits, so its offers state none.
	d.cfg.Runner = config.Runner{Backend: "process", UnsafeProcessRunner: true, CPUCoresPerGPU: 16}
	terms, _ = d.terms(h100, now, 0)
	require.Zero(t, terms.CpuCoresPerGpu)
}
