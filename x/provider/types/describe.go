package types

import (
	"encoding/hex"
	"net"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"

	errorsmod "cosmossdk.io/errors"
)

// Limits on a provider's description.
const (
	MaxMonikerLength  = 64
	MaxEndpointLength = 256
)

// ValidateMoniker checks a moniker: 1..64 bytes of printable UTF-8 with no
// leading or trailing space.
func ValidateMoniker(m string) error {
	switch {
	case m == "":
		return errorsmod.Wrap(ErrInvalidMoniker, "must not be empty")
	case len(m) > MaxMonikerLength:
		return errorsmod.Wrapf(ErrInvalidMoniker, "must be at most %d bytes, got %d", MaxMonikerLength, len(m))
	case !utf8.ValidString(m):
		return errorsmod.Wrap(ErrInvalidMoniker, "must be valid UTF-8")
	case strings.TrimSpace(m) != m:
		return errorsmod.Wrapf(ErrInvalidMoniker, "%q has leading or trailing space", m)
	}
	for _, r := range m {
		if !unicode.IsPrint(r) {
			return errorsmod.Wrapf(ErrInvalidMoniker, "%q has an unprintable character", m)
		}
	}
	return nil
}

// ValidateEndpoint checks the agent's renter-facing URL: https with a host,
// or plain http only on a loopback host (tests and local demos); no user
// info, query or fragment. It returns whether the URL is https, which makes a
// certificate pin mandatory.
func ValidateEndpoint(endpoint string) (https bool, err error) {
	if endpoint == "" || len(endpoint) > MaxEndpointLength {
		return false, errorsmod.Wrapf(ErrInvalidEndpoint, "must be 1..%d bytes", MaxEndpointLength)
	}
	u, err := url.Parse(endpoint)
	if err != nil {
		return false, errorsmod.Wrapf(ErrInvalidEndpoint, "%q: %v", endpoint, err)
	}
	if u.User != nil || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" {
		return false, errorsmod.Wrapf(ErrInvalidEndpoint, "%q: no user info, query or fragment allowed", endpoint)
	}
	host := u.Hostname()
	if host == "" {
		return false, errorsmod.Wrapf(ErrInvalidEndpoint, "%q: missing host", endpoint)
	}
	switch u.Scheme {
	case "https":
		return true, nil
	case "http":
		if isLoopback(host) {
			return false, nil
		}
		return false, errorsmod.Wrapf(ErrInvalidEndpoint, "%q: plain http only on loopback; use https", endpoint)
	default:
		return false, errorsmod.Wrapf(ErrInvalidEndpoint, "%q: scheme must be https", endpoint)
	}
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// ValidateCertHash checks a TLS certificate pin: required (64 lower-case hex
// digits, a SHA-256) for https endpoints, empty or valid for loopback http.
func ValidateCertHash(hash string, required bool) error {
	if hash == "" {
		if required {
			return errorsmod.Wrap(ErrInvalidCertHash, "an https endpoint needs its certificate's SHA-256")
		}
		return nil
	}
	if len(hash) != 64 || strings.ToLower(hash) != hash {
		return errorsmod.Wrapf(ErrInvalidCertHash, "%q: must be 64 lower-case hex digits", hash)
	}
	if _, err := hex.DecodeString(hash); err != nil {
		return errorsmod.Wrapf(ErrInvalidCertHash, "%q: %v", hash, err)
	}
	return nil
}

// ValidateDescription checks the public description of a provider.
func ValidateDescription(moniker, region, endpoint, certHash string) error {
	if err := ValidateMoniker(moniker); err != nil {
		return err
	}
	if err := ValidateRegion(region); err != nil {
		return err
	}
	https, err := ValidateEndpoint(endpoint)
	if err != nil {
		return err
	}
	return ValidateCertHash(certHash, https)
}

// ValidateAgents checks an agent list: at most maxAgents valid addresses,
// no duplicates, and not the operator itself (it already has every right).
// decode turns a bech32 string into address bytes.
func ValidateAgents(operator string, agents []string, maxAgents uint32, decode func(string) ([]byte, error)) error {
	if len(agents) > int(maxAgents) {
		return errorsmod.Wrapf(ErrInvalidAgents, "at most %d agents, got %d", maxAgents, len(agents))
	}
	return ValidateAgentList(operator, agents, decode)
}

// ValidateAgentList is ValidateAgents without the params' bound, so a
// message's ValidateBasic can run it before any state is read.
func ValidateAgentList(operator string, agents []string, decode func(string) ([]byte, error)) error {
	seen := make(map[string]bool, len(agents))
	for _, a := range agents {
		if _, err := decode(a); err != nil {
			return errorsmod.Wrapf(ErrInvalidAgents, "agent %q: %v", a, err)
		}
		if a == operator {
			return errorsmod.Wrap(ErrInvalidAgents, "the operator cannot be its own agent")
		}
		if seen[a] {
			return errorsmod.Wrapf(ErrInvalidAgents, "agent %s listed twice", a)
		}
		seen[a] = true
	}
	return nil
}
