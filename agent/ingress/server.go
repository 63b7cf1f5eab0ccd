package ingress

import (
	"crypto/tls"
	"net/http"
	"time"
)

// NewServer is the HTTPS server for p: HTTP/2 and HTTP/1.1 (upgrades), a
// bound on reading headers, and no read or write deadline, since a
// request's body and a stream may last as long as the lease, which cuts
// them at its end.
func NewServer(p *Proxy, cert tls.Certificate) *http.Server {
	return &http.Server{
		Handler:           p,
		TLSConfig:         &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12, NextProtos: []string{"h2", "http/1.1"}},
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
	}
}
