package config

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestIngressSettings: off by default; on, a domain the chain takes, a
// certificate pair or the generated one (always pinned), per-key limits
// with defaults, and a subnet for the service network.
func TestIngressSettings(t *testing.T) {
	c := Default("/tmp/agent")
	require.False(t, c.Ingress.Enabled())
	require.NotContains(t, fmt.Sprint(c.Validate()), "ingress")

	c.Ingress = Ingress{Listen: "0.0.0.0:443", Domain: "gpus.example.com"}
	require.NoError(t, c.Validate())
	cert, key, pin := c.Ingress.Certificate("/var/lib/idlegpu-agent/state")
	require.Equal(t, filepath.Join("/var/lib/idlegpu-agent/state", "ingress.crt"), cert)
	require.Equal(t, filepath.Join("/var/lib/idlegpu-agent/state", "ingress.key"), key)
	require.True(t, pin, "the generated certificate is pinned")
	r, b := c.Ingress.Limits()
	require.Equal(t, float64(DefaultRatePerKey), r)
	require.Equal(t, DefaultBurstPerKey, b)

	ca := c
	ca.Ingress.TLSCert, ca.Ingress.TLSKey = "/etc/le/fullchain.pem", "/etc/le/privkey.pem"
	require.NoError(t, ca.Validate())
	_, _, pin = ca.Ingress.Certificate("/x")
	require.False(t, pin, "a CA's certificate needs no pin")

	for _, tc := range []struct {
		edit func(*Ingress)
		err  string
	}{
		{func(i *Ingress) { i.Listen = "" }, "ingress.domain is set but ingress.listen is empty"},
		{func(i *Ingress) { i.Listen = "443" }, `ingress.listen "443": want host:port`},
		{func(i *Ingress) { i.Domain = "localhost" }, `ingress.domain: ingress_domain "localhost": a name of at least two labels`},
		{func(i *Ingress) { i.TLSCert = "/c.pem" }, "ingress.tls_cert and ingress.tls_key go together"},
		{func(i *Ingress) { i.PinCertificate = true }, "ingress.pin_certificate is for a configured tls_cert"},
		{func(i *Ingress) { i.RatePerKey = -1 }, "ingress.rate_per_key -1 and burst_per_key 0: want 0 (the default) or more"},
		{func(i *Ingress) { i.ServiceSubnet = "172.31.0.0/31" }, `ingress.service_subnet "172.31.0.0/31": want an IPv4 subnet`},
		{func(i *Ingress) { i.ServiceSubnet = "fd00::/64" }, `ingress.service_subnet "fd00::/64": want an IPv4 subnet`},
	} {
		bad := c
		tc.edit(&bad.Ingress)
		require.ErrorContains(t, bad.Validate(), tc.err)
	}
}
