// Package hostname compares the names HTTP requests are addressed to.
package hostname

import (
	"net"
	"strings"
)

// Canonical is a Host header (or :authority) without its port or trailing
// dot, in lower case: the form the ingress and the gateway route by.
func Canonical(h string) string {
	if host, _, err := net.SplitHostPort(h); err == nil {
		h = host
	}
	return strings.ToLower(strings.TrimSuffix(h, "."))
}
