package sigverify

import (
	"crypto/sha256"

	cryptotypes "github.com/cosmos/cosmos-sdk/crypto/types"
	"github.com/cosmos/cosmos-sdk/types/tx/signing"
)

// Internals the external tests reach.
var (
	CurveOrder = curveOrder
	HalfOrder  = halfOrder
)

// NewVerifierWith is NewVerifier checking uncached signatures with verify.
func NewVerifierWith(size int, verify func(key []byte, digest [sha256.Size]byte, sig []byte) bool) *Verifier {
	v := NewVerifier(size)
	v.verify = verify
	return v
}

// VerifyDigest is the uncached check a Verifier makes.
func VerifyDigest(key []byte, digest [sha256.Size]byte, sig []byte) bool {
	return verifyDigest(key, digest, sig)
}

// PubKeyFor is the key the decorator verifies data with.
func (v *Verifier) PubKeyFor(pk cryptotypes.PubKey, data signing.SignatureData) cryptotypes.PubKey {
	return v.pubKeyFor(pk, data)
}
