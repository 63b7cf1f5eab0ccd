//go:build !cgo || gofuzz

package sigverify

import gethcrypto "github.com/ethereum/go-ethereum/crypto"

// Backend names the code that checks a signature.
const Backend = "decred secp256k1 (go-ethereum, pure Go)"

// backendVerify checks a low-S, reduced R || S over a 32-byte digest. Without
// cgo go-ethereum's libsecp256k1 binding is not built; its pure-Go verifier
// (decred, as the SDK's) gives the same verdict on such a signature.
func backendVerify(key, digest, sig []byte) bool {
	return gethcrypto.VerifySignature(key, digest, sig)
}
