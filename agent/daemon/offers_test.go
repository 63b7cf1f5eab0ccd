package daemon

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"

	"github.com/idlegpu/idlegpu/agent/auditor"
	"github.com/idlegpu/idlegpu/agent/config"
	"github.com/idlegpu/idlegpu/agent/gpu"
	"github.com/idlegpu/idlegpu/agent/policy"
	offertypes "github.com/idlegpu/idlegpu/x/offer/types"
	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
	settlementaudit "github.com/idlegpu/idlegpu/x/settlement/audit"
	settlementtypes "github.com/idlegpu/idlegpu/x/settlement/types"
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
	d.cfg.Runner = config.Runner{Backend: "docker", CPUCoresPerGPU: 16, MemoryMiBPerGPU: 131072, DiskGiBPerGPU: 500, EgressMbpsPerGPU: 1000}

	terms, ok := d.terms(h100, now, 0)
	require.True(t, ok)
	require.Equal(t, []string{"ghcr.io/acme/", "docker.io/library/"}, terms.ImagePrefixes)
	require.Equal(t, uint32(offertypes.WORKLOAD_RENDER|offertypes.WORKLOAD_TRAINING), terms.Workloads)
	require.Equal(t, uint32(16), terms.CpuCoresPerGpu)
	require.Equal(t, uint64(131072), terms.MemoryMibPerGpu)
	require.Equal(t, uint64(500), terms.DiskGibPerGpu)
	require.Equal(t, uint32(1000), terms.EgressMbpsPerGpu)
	params := offertypes.DefaultParams()
	params.PaymentDenoms = []string{"ugpu", "uusdc"}
	require.NoError(t, terms.Validate(params), "the chain takes what the agent publishes")
	require.True(t, offertypes.ImagePrefixesAllow(terms.ImagePrefixes, "ghcr.io/acme/train@sha256:00"))

	for name, edit := range map[string]func(*offertypes.OfferTerms){
		"prefixes":  func(h *offertypes.OfferTerms) { h.ImagePrefixes = nil },
		"cores":     func(h *offertypes.OfferTerms) { h.CpuCoresPerGpu = 8 },
		"memory":    func(h *offertypes.OfferTerms) { h.MemoryMibPerGpu = 1 },
		"disk":      func(h *offertypes.OfferTerms) { h.DiskGibPerGpu = 1 },
		"egress":    func(h *offertypes.OfferTerms) { h.EgressMbpsPerGpu = 0 },
		"workloads": func(h *offertypes.OfferTerms) { h.Workloads = uint32(offertypes.WORKLOAD_TRAINING) },
	} {
		have := terms
		edit(&have)
		require.False(t, sameTerms(have, terms, now), name)
	}
	require.True(t, sameTerms(terms, terms, now))

	// The process runner enforces no limits, so its offers state none.
	d.cfg.Runner = config.Runner{Backend: "process", UnsafeProcessRunner: true, CPUCoresPerGPU: 16, EgressMbpsPerGPU: 1000}
	terms, _ = d.terms(h100, now, 0)
	require.Zero(t, terms.CpuCoresPerGpu)
	require.Zero(t, terms.EgressMbpsPerGpu, "nor any network it cannot confine")
}

// offerChain answers what publishOffers reads: the provider, its two H100s
// here, no offer yet, and each GPU's pass.
type offerChain struct {
	mu       sync.Mutex
	verified map[string]bool
}

type (
	offerProviders   struct{ providertypes.QueryClient }
	offerOffers      struct{ offertypes.QueryClient }
	offerSettlements struct {
		settlementtypes.QueryClient
		c *offerChain
	}
)

func (offerProviders) Provider(context.Context, *providertypes.QueryProviderRequest, ...grpc.CallOption) (*providertypes.QueryProviderResponse, error) {
	return &providertypes.QueryProviderResponse{Provider: providertypes.Provider{Operator: testProvider, Region: "eu-de"}}, nil
}

func (offerProviders) ProviderGPUs(context.Context, *providertypes.QueryProviderGPUsRequest, ...grpc.CallOption) (*providertypes.QueryProviderGPUsResponse, error) {
	var gpus []providertypes.GPU
	for _, u := range []string{"GPU-a", "GPU-b"} {
		gpus = append(gpus, providertypes.GPU{Uuid: u, Provider: testProvider, Model: "NVIDIA H100 80GB HBM3"})
	}
	return &providertypes.QueryProviderGPUsResponse{Gpus: gpus}, nil
}

func (offerOffers) ProviderOffers(context.Context, *offertypes.QueryProviderOffersRequest, ...grpc.CallOption) (*offertypes.QueryProviderOffersResponse, error) {
	return &offertypes.QueryProviderOffersResponse{}, nil
}

func (s offerSettlements) GPUVerification(_ context.Context, req *settlementtypes.QueryGPUVerificationRequest, _ ...grpc.CallOption) (*settlementtypes.QueryGPUVerificationResponse, error) {
	c := s.c
	c.mu.Lock()
	defer c.mu.Unlock()
	return &settlementtypes.QueryGPUVerificationResponse{Verified: c.verified[req.GpuUuid]}, nil
}

// auditsOf lists one OPEN audit of a GPU for an auditor to follow.
type auditsOf struct {
	auditor.Queries
	gpu string
}

func (a auditsOf) Audits(_ context.Context, _ string, st settlementtypes.AuditStatus) ([]settlementtypes.Audit, error) {
	if st != settlementtypes.AUDIT_STATUS_OPEN {
		return nil, nil
	}
	return []settlementtypes.Audit{{Id: 1, GpuUuid: a.gpu, Status: st, AnswerBy: time.Now().Add(time.Hour)}}, nil
}

func (auditsOf) ProviderGPUs(context.Context, string) ([]providertypes.GPU, error) { return nil, nil }

// heldRunner never finishes an audit.
type heldRunner struct{}

func (heldRunner) Name() string { return "held" }

func (heldRunner) Run(ctx context.Context, _ string, _ []byte, _ settlementaudit.Shape) (settlementaudit.States, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

// TestOffersWaitForAPass: a GPU enters an offer only with a valid audit
// pass; while one of a model's new GPUs is under audit none is offered,
// so GPUs that pass together share one offer; one without a pass and no
// audit holds the others back no longer.
func TestOffersWaitForAPass(t *testing.T) {
	ctx := context.Background()
	d := testDaemon(t, config.Default("").Policy)
	c := &offerChain{verified: map[string]bool{}}
	tx := &fakeChain{}
	d.chain, d.q = tx, Queries{provider: offerProviders{}, offer: offerOffers{}, settlement: offerSettlements{c: c}}
	d.provider, d.signer, d.limits = testProvider, testProvider, policy.NewLimits(90, 0, 3)
	d.log = slog.New(slog.DiscardHandler)
	d.devices = map[string]gpu.Info{"GPU-a": {UUID: "GPU-a"}, "GPU-b": {UUID: "GPU-b"}}
	now := time.Now()
	created := func() [][]string {
		var out [][]string
		for _, m := range tx.sent {
			if o, ok := m.(*offertypes.MsgCreateOffer); ok {
				out = append(out, o.GpuUuids)
			}
		}
		return out
	}

	require.NoError(t, d.publishOffers(ctx, now))
	require.Empty(t, tx.sent, "no GPU has a pass")

	// GPU-a passed; GPU-b's audit is under way.
	c.verified["GPU-a"] = true
	actx, stop := context.WithCancel(ctx)
	d.auditor = auditor.New(auditor.Config{Provider: testProvider, GPUs: []string{"GPU-a", "GPU-b"}, Runner: heldRunner{},
		Queries: auditsOf{gpu: "GPU-b"}, Poll: time.Millisecond})
	done := make(chan struct{})
	go func() { defer close(done); _ = d.auditor.Run(actx) }()
	require.Eventually(t, func() bool { return d.auditor.Auditing("GPU-b") }, 5*time.Second, time.Millisecond)
	require.NoError(t, d.publishOffers(ctx, now))
	require.Empty(t, tx.sent, "GPU-b may pass soon: both go in one offer then")

	c.mu.Lock()
	c.verified["GPU-b"] = true
	c.mu.Unlock()
	stop()
	<-done // its audit over, GPU-b has a pass: one offer of both
	require.NoError(t, d.publishOffers(ctx, now))
	require.Equal(t, [][]string{{"GPU-a", "GPU-b"}}, created())

	// Had GPU-b missed its audit instead, GPU-a goes alone.
	tx.sent = nil
	c.verified["GPU-b"] = false
	require.NoError(t, d.publishOffers(ctx, now))
	require.Equal(t, [][]string{{"GPU-a"}}, created())
}
