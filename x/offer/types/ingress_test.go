package types_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/x/offer/types"
)

func TestIngressFits(t *testing.T) {
	for _, tc := range []struct {
		domain string
		port   uint32
		want   bool
	}{
		{"", 0, true},                // no service asked, none offered
		{"gpu.example.com", 0, true}, // a job with no service fits an ingress offer
		{"", 8000, false},            // nothing could reach the service
		{"gpu.example.com", 8000, true},
		{"gpu.example.com", 65535, true},
	} {
		require.Equal(t, tc.want, types.IngressFits(tc.domain, tc.port), "domain %q, port %d", tc.domain, tc.port)
		require.Equal(t, tc.want, types.OfferTerms{IngressDomain: tc.domain}.GivesIngress(tc.port))
	}
}

func TestLeaseHostname(t *testing.T) {
	require.Equal(t, "lease-7.gpu.example.com", types.LeaseHostname(7, "gpu.example.com"))
	// The longest lease number under the longest domain is still a DNS name.
	longest := strings.Repeat(strings.Repeat("a", 62)+".", 3) + strings.Repeat("b", types.MaxIngressDomainLen-3*63)
	require.Len(t, longest, types.MaxIngressDomainLen)
	require.NoError(t, types.ValidateIngressDomain(longest))
	require.Len(t, types.LeaseHostname(^uint64(0), longest), 253)
}

func TestValidateIngressDomain(t *testing.T) {
	for _, tc := range []struct {
		domain string
		err    string // "" = valid
	}{
		{"gpu.example.com", ""},
		{"a.b", ""},
		{"eu-1.gpus.example", ""},
		{"xn--bcher-kva.example", ""},
		{"localhost", `ingress_domain "localhost": a name of at least two labels, such as gpu.example.com: invalid ingress`},
		{"GPU.example.com", `ingress_domain "GPU.example.com": label "GPU" is not 1–63 lower-case letters, digits or inner hyphens: invalid ingress`},
		{"gpu.example.com.", `ingress_domain "gpu.example.com.": label "" is not 1–63 lower-case letters, digits or inner hyphens: invalid ingress`},
		{"*.example.com", `ingress_domain "*.example.com": label "*" is not 1–63 lower-case letters, digits or inner hyphens: invalid ingress`},
		{"-gpu.example.com", `ingress_domain "-gpu.example.com": label "-gpu" is not 1–63 lower-case letters, digits or inner hyphens: invalid ingress`},
		{"gpu-.example.com", `ingress_domain "gpu-.example.com": label "gpu-" is not 1–63 lower-case letters, digits or inner hyphens: invalid ingress`},
		{"gpu.example.com:443", `ingress_domain "gpu.example.com:443": label "com:443" is not 1–63 lower-case letters, digits or inner hyphens: invalid ingress`},
		{"gpu..example.com", `ingress_domain "gpu..example.com": label "" is not 1–63 lower-case letters, digits or inner hyphens: invalid ingress`},
		{strings.Repeat("a", 64) + ".example.com", `label "` + strings.Repeat("a", 64) + `" is not`},
		{strings.Repeat("a.", 113) + "bb", "ingress_domain is 228 characters, at most 226: invalid ingress"},
	} {
		err := types.ValidateIngressDomain(tc.domain)
		if tc.err == "" {
			require.NoError(t, err, tc.domain)
			continue
		}
		require.ErrorIs(t, err, types.ErrInvalidIngress, tc.domain)
		require.Contains(t, err.Error(), tc.err)
	}
}

// FuzzValidateIngressDomain: any string is accepted or refused with
// ErrInvalidIngress, never a panic; an accepted domain gives every lease a
// hostname that is itself a valid DNS name (at most 253 characters, each
// label 1–63 lower-case letters, digits or inner hyphens).
func FuzzValidateIngressDomain(f *testing.F) {
	for _, s := range []string{"gpu.example.com", "a.b", "localhost", "GPU.example.com", "*.x.y", "a..b", "-a.b", "x.y:443", strings.Repeat("a.", 113) + "bb", "\xff.\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, d string) {
		err := types.ValidateIngressDomain(d)
		if err != nil {
			require.ErrorIs(t, err, types.ErrInvalidIngress)
			return
		}
		host := types.LeaseHostname(^uint64(0), d)
		require.LessOrEqual(t, len(host), 253)
		for _, l := range strings.Split(host, ".") {
			require.NotEmpty(t, l)
			require.LessOrEqual(t, len(l), 63)
			require.False(t, strings.HasPrefix(l, "-") || strings.HasSuffix(l, "-"), l)
			require.Empty(t, strings.Trim(l, "abcdefghijklmnopqrstuvwxyz0123456789-"), l)
		}
	})
}
