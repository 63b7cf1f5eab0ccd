package gateway

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"
)

// Upstreams' TLS: an ingress under a public CA's certificate is verified
// against roots; one whose offer publishes a pin (a self-signed
// certificate) is trusted by that pin alone, as the agent's endpoint is.
// pins maps a lease's hostname (the name the gateway dials, its SNI) to
// its pin.
func upstreamTLS(roots *x509.CertPool, pins map[string]string) *tls.Config {
	if len(pins) == 0 {
		return &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}
	}
	return &tls.Config{
		MinVersion:         tls.VersionTLS12,
		InsecureSkipVerify: true, //nolint:gosec // every connection is verified by VerifyConnection
		VerifyConnection: func(cs tls.ConnectionState) error {
			if len(cs.PeerCertificates) == 0 {
				return errors.New("the ingress sent no certificate")
			}
			leaf := cs.PeerCertificates[0]
			if pin, ok := pins[cs.ServerName]; ok {
				sum := sha256.Sum256(leaf.Raw)
				if got := hex.EncodeToString(sum[:]); got != pin {
					return fmt.Errorf("the ingress of %s presents certificate sha256 %s, not the pinned %s", cs.ServerName, got, pin)
				}
				return nil
			}
			inter := x509.NewCertPool()
			for _, c := range cs.PeerCertificates[1:] {
				inter.AddCert(c)
			}
			_, err := leaf.Verify(x509.VerifyOptions{DNSName: cs.ServerName, Roots: roots, Intermediates: inter})
			return err
		},
	}
}

// newTransport reaches the upstreams: TLS as upstreamTLS, and connect maps
// an upstream's host:port to the address dialled instead (as curl's
// --connect-to: a test network without DNS for the providers' domains).
func newTransport(roots *x509.CertPool, pins map[string]string, connect map[string]string, headerTimeout time.Duration) *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.Proxy = nil
	t.TLSClientConfig = upstreamTLS(roots, pins)
	t.ResponseHeaderTimeout = headerTimeout
	if len(connect) > 0 {
		d := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
		t.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
			if to, ok := connect[addr]; ok {
				addr = to
			}
			return d.DialContext(ctx, network, addr)
		}
	}
	return t
}
