//go:build cgo && !gofuzz

package sigverify

import gethsecp "github.com/ethereum/go-ethereum/crypto/secp256k1"

// Backend names the code that checks a signature.
const Backend = "libsecp256k1 (go-ethereum, cgo)"

// backendVerify checks a low-S, reduced R || S over a 32-byte digest.
func backendVerify(key, digest, sig []byte) bool {
	return gethsecp.VerifySignature(key, digest, sig)
}
