package sigverify

import (
	"bytes"
	"crypto/sha256"
	"math/big"

	"github.com/cosmos/cosmos-sdk/crypto/keys/secp256k1"
)

const (
	// PubKeySize is the size of a compressed secp256k1 key, the only form an
	// SDK account holds (the SDK refuses to derive an address from another).
	PubKeySize = secp256k1.PubKeySize
	// SignatureSize is the size of a signature, R || S.
	SignatureSize = 64
)

var (
	// curveOrder is n, the order of secp256k1's group, big-endian.
	curveOrder = [32]byte{
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe,
		0xba, 0xae, 0xdc, 0xe6, 0xaf, 0x48, 0xa0, 0x3b, 0xbf, 0xd2, 0x5e, 0x8c, 0xd0, 0x36, 0x41, 0x41,
	}
	// halfOrder is (n-1)/2: an S above it is the malleable twin of n-S.
	halfOrder = [32]byte{
		0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0x5d, 0x57, 0x6e, 0x73, 0x57, 0xa4, 0x50, 0x1d, 0xdf, 0xe9, 0x2f, 0x46, 0x68, 0x1b, 0x20, 0xa0,
	}
	curveOrderInt = new(big.Int).SetBytes(curveOrder[:])
)

// VerifySecp256k1 reports whether sig is a signature of msg by key, with the
// verdict of the SDK's (*secp256k1.PubKey).VerifySignature for every input:
// sig is R || S, S must be low, msg is hashed with SHA-256. A compressed key
// is checked with libsecp256k1 (Backend); any other encoding, which the SDK
// cannot derive an address from, is rare and left to the SDK.
func VerifySecp256k1(key, msg, sig []byte) bool {
	if !isCompressed(key) {
		return (&secp256k1.PubKey{Key: key}).VerifySignature(msg, sig)
	}
	digest := sha256.Sum256(msg)
	return verifyDigest(key, digest, sig)
}

// isCompressed reports whether key has the size and prefix of a compressed
// point; whether the point is on the curve is the verifier's to find.
func isCompressed(key []byte) bool {
	return len(key) == PubKeySize && (key[0] == 0x02 || key[0] == 0x03)
}

// verifyDigest is VerifySecp256k1 for a compressed key and the SHA-256 digest
// of the message.
func verifyDigest(key []byte, digest [sha256.Size]byte, sig []byte) bool {
	var rs [SignatureSize]byte
	if len(sig) != SignatureSize || !canonicalScalars(&rs, sig) {
		return false
	}
	return backendVerify(key, digest[:], rs[:])
}

// canonicalScalars writes R and S of sig into rs reduced modulo n, and
// reports whether they can make a valid signature: both nonzero, S low. The
// SDK reads each scalar modulo n (decred's ModNScalar.SetByteSlice) where
// libsecp256k1 refuses one ≥ n, so reducing first gives libsecp256k1 the
// scalars the SDK verifies with. Its low-S and nonzero rules are the SDK's.
func canonicalScalars(rs *[SignatureSize]byte, sig []byte) bool {
	r, s := rs[:32], rs[32:]
	reduce(r, sig[:32])
	reduce(s, sig[32:])
	var zero [32]byte
	if bytes.Equal(r, zero[:]) || bytes.Equal(s, zero[:]) {
		return false
	}
	return bytes.Compare(s, halfOrder[:]) <= 0
}

// reduce writes src (32 bytes, big-endian) modulo n into dst. src < 2^256 <
// 2n, so one subtraction is enough; honest signatures never need it.
func reduce(dst, src []byte) {
	if bytes.Compare(src, curveOrder[:]) < 0 {
		copy(dst, src)
		return
	}
	v := new(big.Int).SetBytes(src)
	v.Sub(v, curveOrderInt).FillBytes(dst)
}
