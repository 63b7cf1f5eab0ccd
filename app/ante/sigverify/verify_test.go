package sigverify_test

import (
	"crypto/sha256"
	"math/big"
	"testing"

	gethcrypto "github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/require"

	"github.com/cosmos/cosmos-sdk/crypto/keys/secp256k1"

	"github.com/idlegpu/idlegpu/app/ante/sigverify"
)

// TestCurveConstants: the package's n and (n-1)/2 are secp256k1's.
func TestCurveConstants(t *testing.T) {
	n := gethcrypto.S256().Params().N
	require.Equal(t, 0, n.Cmp(order))
	half := new(big.Int).Rsh(new(big.Int).Sub(n, big.NewInt(1)), 1)
	require.Equal(t, 0, half.Cmp(new(big.Int).SetBytes(sigverify.HalfOrder[:])))
}

// variant is one (key, message, signature) input to both verifiers.
type variant struct {
	name          string
	key, msg, sig []byte
}

// variants returns a signed triple and the ways it can be wrong: every bit of
// the signature flipped, the malleable high-S twin, scalars zero, equal to n
// or at the top of the range, other lengths, another key or message, and keys
// in every encoding and corruption.
func variants(t testing.TB, key, msg, sig, otherKey []byte) []variant {
	r, s := scalars(sig)
	vs := []variant{
		{"signed", key, msg, sig},
		{"high S", key, msg, highS(sig)},
		{"another key", otherKey, msg, sig},
		{"another message", key, append(append([]byte(nil), msg...), 0), sig},
		{"short", key, msg, sig[:63]},
		{"long", key, msg, append(append([]byte(nil), sig...), 0)},
		{"with recovery byte", key, msg, append(append([]byte(nil), sig...), 1)},
		{"empty signature", key, msg, nil},
		{"empty key", nil, msg, sig},
		{"key prefix flipped", append([]byte{key[0] ^ 1}, key[1:]...), msg, sig},
		{"key prefix 04", append([]byte{0x04}, key[1:]...), msg, sig},
		{"key prefix 00", append([]byte{0x00}, key[1:]...), msg, sig},
		{"key x ≥ p", append([]byte{key[0]}, bytesOf(0xff, 32)...), msg, sig},
		{"key short", key[:32], msg, sig},
		{"key uncompressed", uncompressed(t, key), msg, sig},
		{"key hybrid", hybrid(t, key), msg, sig},
	}
	one := big.NewInt(1)
	top := new(big.Int).Sub(new(big.Int).Lsh(one, 256), one)
	for _, c := range []struct {
		name string
		r, s *big.Int
	}{
		{"zero R", new(big.Int), s},
		{"zero S", r, new(big.Int)},
		{"R = n", order, s},
		{"S = n", r, order},
		{"R + n", new(big.Int).Add(r, order), s},
		{"S + n", r, new(big.Int).Add(s, order)},
		{"R = 2^256-1", top, s},
		{"S = 2^256-1", r, top},
		{"S = (n-1)/2 + 1", r, new(big.Int).Add(new(big.Int).SetBytes(sigverify.HalfOrder[:]), one)},
	} {
		if bz, ok := join(c.r, c.s); ok {
			vs = append(vs, variant{c.name, key, msg, bz})
		}
	}
	for bit := range 8 * len(sig) {
		vs = append(vs, variant{"signature bit flipped", key, msg, flipBit(sig, bit)})
	}
	for bit := 0; bit < 8*len(key); bit += 5 {
		vs = append(vs, variant{"key bit flipped", flipBit(key, bit), msg, sig})
	}
	return vs
}

func bytesOf(b byte, n int) []byte {
	out := make([]byte, n)
	for i := range out {
		out[i] = b
	}
	return out
}

// hybrid returns the 65-byte hybrid encoding (06/07 || X || Y) of key.
func hybrid(t testing.TB, key []byte) []byte {
	out := uncompressed(t, key)
	out[0] = 0x06 | out[64]&1
	return out
}

// TestVerifyMatchesSDK: over keys, messages of several sizes and every
// variant of their signatures, VerifySecp256k1 and a caching Verifier give
// the SDK's verdict.
func TestVerifyMatchesSDK(t *testing.T) {
	v := sigverify.NewVerifier(64)
	for i := range 6 {
		priv := testKey(i)
		key := priv.PubKey().Bytes()
		other := testKey(i + 100).PubKey().Bytes()
		msg := bytesOf(byte(i), []int{0, 1, 32, 100, 500, 2000}[i])
		sig, err := priv.Sign(msg)
		require.NoError(t, err)

		var accepted int
		for _, c := range variants(t, key, msg, sig, other) {
			want := sdkVerdict(c.key, c.msg, c.sig)
			require.Equal(t, want, sigverify.VerifySecp256k1(c.key, c.msg, c.sig), "%s: key %x msg %x sig %x", c.name, c.key, c.msg, c.sig)
			require.Equal(t, want, v.Verify(c.key, c.msg, c.sig), "%s (cached)", c.name)
			if want {
				accepted++
			}
		}
		// The signature as signed, and under the uncompressed and hybrid
		// forms of its key: the differential test compares both verdicts.
		require.Equal(t, 3, accepted, "key %d", i)
		require.False(t, sdkVerdict(key, msg, highS(sig)))
	}
}

// TestUnreducedScalars: the SDK reads R and S modulo n, libsecp256k1 refuses
// either ≥ n. An honest signature never has one (R or S below 2^256-n, about
// 2^128, would be needed), but a signer can make one for a key recovered from
// the signature, so VerifySecp256k1 reduces first and keeps the SDK's verdict.
func TestUnreducedScalars(t *testing.T) {
	msg := []byte("unreduced")
	digest := sha256.Sum256(msg)
	// recovered finds the key for which (r, s) signs msg, if r is the X of a point.
	recovered := func(r, s *big.Int) ([]byte, bool) {
		sig, ok := join(r, s)
		require.True(t, ok)
		pub, err := gethcrypto.Ecrecover(digest[:], append(sig, 0))
		if err != nil {
			return nil, false
		}
		ecdsaPub, err := gethcrypto.UnmarshalPubkey(pub)
		require.NoError(t, err)
		return gethcrypto.CompressPubkey(ecdsaPub), true
	}
	check := func(name string, key []byte, r, s, rr, ss *big.Int) {
		sig, _ := join(r, s)
		require.True(t, sdkVerdict(key, msg, sig), name)
		unreduced, ok := join(rr, ss)
		require.True(t, ok, name)
		require.True(t, sdkVerdict(key, msg, unreduced), "%s: the SDK reduces modulo n", name)
		require.False(t, gethcrypto.VerifySignature(key, digest[:], unreduced), "%s: libsecp256k1 refuses a scalar ≥ n", name)
		require.True(t, sigverify.VerifySecp256k1(key, msg, unreduced), name)
		require.True(t, sigverify.NewVerifier(2).Verify(key, msg, unreduced), name)
	}

	s := big.NewInt(12345)
	r := big.NewInt(1)
	key, ok := recovered(r, s)
	for ; !ok; key, ok = recovered(r, s) {
		r.Add(r, big.NewInt(1))
	}
	check("R + n", key, r, s, new(big.Int).Add(r, order), s)

	honest, err := testKey(1).Sign(msg)
	require.NoError(t, err)
	r, _ = scalars(honest)
	s = big.NewInt(7)
	key, ok = recovered(r, s)
	require.True(t, ok)
	check("S + n", key, r, s, r, new(big.Int).Add(s, order))
}

// FuzzVerifySecp256k1: for any key, message and mutation of a real
// signature, or arbitrary key and signature bytes, VerifySecp256k1 gives the
// SDK's verdict.
func FuzzVerifySecp256k1(f *testing.F) {
	for op := range uint8(8) {
		f.Add([]byte{op}, []byte("message"), op, []byte{0x01, 0xff, 0x00, 0x80})
	}
	f.Add([]byte("k"), []byte{}, uint8(3), bytesOf(0xff, 64))
	f.Add([]byte("k"), []byte{}, uint8(4), append([]byte{0x02}, bytesOf(0xff, 32)...))
	f.Fuzz(func(t *testing.T, seed, msg []byte, op uint8, arg []byte) {
		priv := secp256k1.GenPrivKeyFromSecret(seed)
		key := priv.PubKey().Bytes()
		sig, err := priv.Sign(msg)
		require.NoError(t, err)
		switch op % 8 {
		case 0: // as signed
		case 1: // flip bits named by arg
			for _, b := range arg {
				sig = flipBit(sig, int(b)*2%512)
			}
		case 2:
			sig = highS(sig)
		case 3: // any signature bytes
			sig = arg
		case 4: // any key bytes
			key = arg
		case 5: // R from arg
			copy(sig[:32], append(bytesOf(0, max(0, 32-len(arg))), arg...))
		case 6: // S from arg
			copy(sig[32:], append(bytesOf(0, max(0, 32-len(arg))), arg...))
		case 7: // another message
			msg = append(append([]byte(nil), msg...), arg...)
			if len(arg) == 0 {
				msg = append(msg, 0)
			}
		}
		require.Equal(t, sdkVerdict(key, msg, sig), sigverify.VerifySecp256k1(key, msg, sig), "key %x msg %x sig %x", key, msg, sig)
	})
}
