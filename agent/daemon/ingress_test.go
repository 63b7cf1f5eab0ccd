package daemon

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/agent/config"
	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
)

// TestIngressTermsAndAcceptance: offers publish the ingress only when the
// agent runs one, and the agent takes a job that serves only then, by the
// chain's rule (IngressFits), so it never refuses a lease clearing gave it.
func TestIngressTermsAndAcceptance(t *testing.T) {
	const h100 = "NVIDIA H100 80GB HBM3"
	now := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	serves := auctiontypes.Job{Spec: auctiontypes.JobSpec{IngressPort: 8000}}
	closed := auctiontypes.Job{}

	d := testDaemon(t, config.Default("").Policy)
	terms, ok := d.terms(h100, now, 0)
	require.True(t, ok)
	require.Empty(t, terms.IngressDomain, "no ingress: none published")
	require.Empty(t, terms.IngressTlsCertSha256)
	require.ErrorContains(t, d.acceptsIngress(serves), "the job serves on port 8000 and this agent runs no ingress")
	require.NoError(t, d.acceptsIngress(closed))

	d.ing = &ingressState{domain: "gpus.example.com", pin: "ab12"}
	terms, _ = d.terms(h100, now, 0)
	require.Equal(t, "gpus.example.com", terms.IngressDomain)
	require.Equal(t, "ab12", terms.IngressTlsCertSha256)
	require.NoError(t, d.acceptsIngress(serves))
	require.NoError(t, d.acceptsIngress(closed))
	// An offer published before the ingress was configured is republished.
	before := terms
	before.IngressDomain, before.IngressTlsCertSha256 = "", ""
	require.False(t, sameTerms(before, terms, now))
	require.True(t, sameTerms(terms, terms, now))
}

func TestReservedTargets(t *testing.T) {
	require.Equal(t, []string{
		"0.0.0.0:9180", "127.0.0.1:9180", "[::1]:9180", "localhost:9180",
		"127.0.0.1:9470", "127.0.0.1:9470", "[::1]:9470", "localhost:9470",
	}, reservedTargets("0.0.0.0:9180", "", "127.0.0.1:9470"))
}
