package types

import (
	"strconv"
	"strings"

	errorsmod "cosmossdk.io/errors"

	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
)

// MaxIngressDomainLen is a DNS name's limit in presentation form (RFC 1035
// §2.3.4: 255 octets on the wire, 253 characters written), less the
// "lease-<20 digits>." label a lease's hostname puts in front, so every
// hostname the domain gives is itself a valid name.
const MaxIngressDomainLen = 253 - len("lease-18446744073709551615.")

// validateIngress checks the inbound-service terms: no domain means no
// ingress (and then no certificate pin); a domain is a lower-case DNS name of
// at least two labels, each 1–63 letters, digits or inner hyphens (RFC 1123
// §2.1), so the wildcard certificate and the hostnames are well formed; the
// pin, when given, is 64 lower-case hex digits.
func (t OfferTerms) validateIngress() error {
	if t.IngressDomain == "" {
		if t.IngressTlsCertSha256 != "" {
			return errorsmod.Wrap(ErrInvalidIngress, "ingress_tls_cert_sha256 without an ingress_domain")
		}
		return nil
	}
	if err := ValidateIngressDomain(t.IngressDomain); err != nil {
		return err
	}
	if providertypes.ValidateCertHash(t.IngressTlsCertSha256, false) != nil {
		return errorsmod.Wrapf(ErrInvalidIngress, "ingress_tls_cert_sha256 %q: must be 64 lower-case hex digits", t.IngressTlsCertSha256)
	}
	return nil
}

// ValidateIngressDomain checks a provider's ingress domain (validateIngress).
func ValidateIngressDomain(d string) error {
	if len(d) > MaxIngressDomainLen {
		return errorsmod.Wrapf(ErrInvalidIngress, "ingress_domain is %d characters, at most %d", len(d), MaxIngressDomainLen)
	}
	labels := strings.Split(d, ".")
	if len(labels) < 2 {
		return errorsmod.Wrapf(ErrInvalidIngress, "ingress_domain %q: a name of at least two labels, such as gpu.example.com", d)
	}
	for _, l := range labels {
		if !dnsLabel(l) {
			return errorsmod.Wrapf(ErrInvalidIngress, "ingress_domain %q: label %q is not 1–63 lower-case letters, digits or inner hyphens", d, l)
		}
	}
	return nil
}

func dnsLabel(l string) bool {
	if len(l) == 0 || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
		return false
	}
	for i := 0; i < len(l); i++ {
		c := l[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// GivesIngress reports whether the terms serve a job whose inbound service
// listens on port (IngressFits).
func (t OfferTerms) GivesIngress(port uint32) bool {
	return IngressFits(t.IngressDomain, port)
}

// IngressFits is the inbound-service fit rule, applied by clearing and by the
// agent before it takes a lease: a job with no service port (0) fits every
// offer; one with a port fits only an offer with an ingress domain, since
// nothing else could reach it.
func IngressFits(domain string, port uint32) bool {
	return port == 0 || domain != ""
}

// LeaseHostname is where a lease's inbound service is served: the lease's
// own name under the provider's ingress domain. The agent's ingress routes by
// it and the gateway and the web app address a lease by it.
func LeaseHostname(leaseID uint64, domain string) string {
	return "lease-" + strconv.FormatUint(leaseID, 10) + "." + domain
}
