package ingress

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"
)

// KeyPrefix starts every API key, so a leaked key is recognisable (secret
// scanners match on such prefixes).
const KeyPrefix = "igk_"

// keyBytes is a key's entropy: 256 bits, as a bearer secret should have.
const keyBytes = 32

// KeyHash is the SHA-256 of a key: what a renter registers and the proxy
// keeps. The key itself is never stored.
type KeyHash [sha256.Size]byte

// NewKey makes a random API key and its hash.
func NewKey() (string, KeyHash, error) {
	b := make([]byte, keyBytes)
	if _, err := rand.Read(b); err != nil {
		return "", KeyHash{}, fmt.Errorf("ingress: making a key: %w", err)
	}
	key := KeyPrefix + base64.RawURLEncoding.EncodeToString(b)
	return key, HashKey(key), nil
}

// HashKey is the hash a key is registered and checked by.
func HashKey(key string) KeyHash { return sha256.Sum256([]byte(key)) }

// String is the hash in hex.
func (h KeyHash) String() string { return hex.EncodeToString(h[:]) }

// ParseKeyHash reads a hash written by String.
func ParseKeyHash(s string) (KeyHash, error) {
	var h KeyHash
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != len(h) {
		return h, fmt.Errorf("ingress: %q is not a 64-digit hex SHA-256", s)
	}
	copy(h[:], b)
	return h, nil
}

// bearer is the key a request carries: "Authorization: Bearer <key>", as
// OpenAI-compatible clients send it.
func bearer(auth string) (string, bool) {
	const scheme = "Bearer "
	if len(auth) <= len(scheme) || !strings.EqualFold(auth[:len(scheme)], scheme) {
		return "", false
	}
	return strings.TrimSpace(auth[len(scheme):]), true
}
