package config

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"path/filepath"

	offertypes "github.com/idlegpu/idlegpu/x/offer/types"
)

// Ingress is the proxy that serves leases' inbound HTTP services at
// https://lease-<id>.<domain> (agent/ingress).
type Ingress struct {
	Listen string `toml:"listen" comment:"host:port the ingress serves leases' services on (usually 0.0.0.0:443). Empty: no ingress, and offers take no job that serves inbound traffic."`
	Domain string `toml:"domain" comment:"DNS name leases are served under, as lease-<id>.<domain> (published in offers); a wildcard record *.<domain> must point at this host."`
	// A public CA's wildcard certificate (ACME) needs no pin; a
	// self-signed one is pinned on chain.
	TLSCert        string  `toml:"tls_cert" comment:"PEM certificate for *.<domain>, e.g. an ACME wildcard certificate. Empty: the agent makes a self-signed one in state.dir and pins it in its offers."`
	TLSKey         string  `toml:"tls_key" comment:"PEM private key of tls_cert."`
	PinCertificate bool    `toml:"pin_certificate" comment:"Publish tls_cert's SHA-256 in offers, for a self-signed tls_cert (a CA-signed one needs no pin). The generated certificate is always pinned."`
	RatePerKey     float64 `toml:"rate_per_key" comment:"Requests per second each renter-issued API key may send, sustained (0: 50)."`
	BurstPerKey    int     `toml:"burst_per_key" comment:"Requests each key may send at once above the rate (0: 100)."`
	ServiceSubnet  string  `toml:"service_subnet" comment:"docker runner: the IPv4 subnet of the network jobs serve on, e.g. 172.31.0.0/24 (empty: one of Docker's pools)."`
}

// Defaults of the per-key limits.
const (
	DefaultRatePerKey  = 50
	DefaultBurstPerKey = 100
)

// Enabled says the agent runs an ingress.
func (i Ingress) Enabled() bool { return i.Listen != "" }

// Limits are each key's rate and burst, the defaults filled in.
func (i Ingress) Limits() (float64, int) {
	r, b := i.RatePerKey, i.BurstPerKey
	if r == 0 {
		r = DefaultRatePerKey
	}
	if b == 0 {
		b = DefaultBurstPerKey
	}
	return r, b
}

// Certificate is the certificate and key files the ingress serves, and
// whether their pin is published: the configured pair, or the one the
// agent generates in stateDir.
func (i Ingress) Certificate(stateDir string) (cert, key string, pin bool) {
	if i.TLSCert != "" {
		return i.TLSCert, i.TLSKey, i.PinCertificate
	}
	return filepath.Join(stateDir, "ingress.crt"), filepath.Join(stateDir, "ingress.key"), true
}

func (i Ingress) validate() []error {
	var errs []error
	if !i.Enabled() {
		if i.Domain != "" {
			errs = append(errs, errors.New("ingress.domain is set but ingress.listen is empty: set both to serve leases' services, or neither"))
		}
		return errs
	}
	if _, _, err := net.SplitHostPort(i.Listen); err != nil {
		errs = append(errs, fmt.Errorf("ingress.listen %q: want host:port", i.Listen))
	}
	if err := offertypes.ValidateIngressDomain(i.Domain); err != nil {
		errs = append(errs, fmt.Errorf("ingress.domain: %w", err))
	}
	if (i.TLSCert == "") != (i.TLSKey == "") {
		errs = append(errs, errors.New("ingress.tls_cert and ingress.tls_key go together"))
	}
	if i.TLSCert == "" && i.PinCertificate {
		errs = append(errs, errors.New("ingress.pin_certificate is for a configured tls_cert: the generated certificate is always pinned"))
	}
	if i.RatePerKey < 0 || i.BurstPerKey < 0 {
		errs = append(errs, fmt.Errorf("ingress.rate_per_key %v and burst_per_key %d: want 0 (the default) or more", i.RatePerKey, i.BurstPerKey))
	}
	if i.ServiceSubnet != "" {
		if p, err := netip.ParsePrefix(i.ServiceSubnet); err != nil || !p.Addr().Is4() || p.Bits() > 30 {
			errs = append(errs, fmt.Errorf("ingress.service_subnet %q: want an IPv4 subnet of at least 4 addresses, e.g. 172.31.0.0/24", i.ServiceSubnet))
		}
	}
	return errs
}
