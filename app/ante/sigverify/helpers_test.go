package sigverify_test

import (
	"crypto/sha256"
	"math/big"
	"sync/atomic"
	"testing"

	gethcrypto "github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/require"

	"github.com/cosmos/cosmos-sdk/crypto/keys/secp256k1"

	"github.com/idlegpu/idlegpu/app/ante/sigverify"
)

// order is n, the order of secp256k1's group.
var order = new(big.Int).SetBytes(sigverify.CurveOrder[:])

// sdkVerdict is the SDK's pure-Go verdict, the one the chain must keep.
func sdkVerdict(key, msg, sig []byte) bool {
	return (&secp256k1.PubKey{Key: key}).VerifySignature(msg, sig)
}

// scalars splits a 64-byte signature into R and S.
func scalars(sig []byte) (r, s *big.Int) {
	return new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:64])
}

// join encodes R || S; ok is false when either does not fit 32 bytes.
func join(r, s *big.Int) (sig []byte, ok bool) {
	if r.Sign() < 0 || s.Sign() < 0 || r.BitLen() > 256 || s.BitLen() > 256 {
		return nil, false
	}
	sig = make([]byte, 64)
	r.FillBytes(sig[:32])
	s.FillBytes(sig[32:])
	return sig, true
}

// highS returns sig's malleable twin R || n-S, which the SDK refuses.
func highS(sig []byte) []byte {
	r, s := scalars(sig)
	out, _ := join(r, new(big.Int).Sub(order, s))
	return out
}

// testKey is the deterministic key i with a signature of msg.
func testKey(i int) *secp256k1.PrivKey {
	return secp256k1.GenPrivKeyFromSecret([]byte{byte(i), byte(i >> 8), 's', 'i', 'g'})
}

// uncompressed returns the 65-byte form of a compressed key.
func uncompressed(t testing.TB, key []byte) []byte {
	t.Helper()
	pub, err := gethcrypto.DecompressPubkey(key)
	require.NoError(t, err)
	return gethcrypto.FromECDSAPub(pub)
}

// counting wraps verify and counts its calls.
func counting(verify func(key []byte, digest [sha256.Size]byte, sig []byte) bool) (func(key []byte, digest [sha256.Size]byte, sig []byte) bool, *atomic.Int64) {
	var calls atomic.Int64
	return func(key []byte, digest [sha256.Size]byte, sig []byte) bool {
		calls.Add(1)
		return verify(key, digest, sig)
	}, &calls
}

func flipBit(b []byte, bit int) []byte {
	out := append([]byte(nil), b...)
	out[bit/8] ^= 1 << (bit % 8)
	return out
}
