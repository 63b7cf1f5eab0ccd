package sigverify_test

import (
	"crypto/sha256"
	"encoding/binary"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/app/ante/sigverify"
)

// TestVerifierRemembersAcceptances: a triple verified once is not verified
// again; another signature, message or key is, and so is every refusal.
func TestVerifierRemembersAcceptances(t *testing.T) {
	verify, calls := counting(sigverify.VerifyDigest)
	v := sigverify.NewVerifierWith(100, verify)
	priv, other := testKey(1), testKey(2)
	key, otherKey := priv.PubKey().Bytes(), other.PubKey().Bytes()
	msg, msg2 := []byte("sign doc"), []byte("sign doc 2")
	sig, err := priv.Sign(msg)
	require.NoError(t, err)
	sig2, err := priv.Sign(msg2)
	require.NoError(t, err)
	otherSig, err := other.Sign(msg)
	require.NoError(t, err)

	require.True(t, v.Verify(key, msg, sig))
	require.EqualValues(t, 1, calls.Load())
	require.True(t, v.Verify(key, msg, sig), "a hit")
	require.EqualValues(t, 1, calls.Load())
	require.Equal(t, 1, v.Len())

	testCases := []struct {
		name          string
		key, msg, sig []byte
		valid         bool
	}{
		{name: "another message and signature", key: key, msg: msg2, sig: sig2, valid: true},
		{name: "another key", key: otherKey, msg: msg, sig: otherSig, valid: true},
		{name: "the signature over another message", key: key, msg: msg2, sig: sig},
		{name: "the signature by another key", key: otherKey, msg: msg, sig: sig},
		{name: "another signature", key: key, msg: msg, sig: flipBit(sig, 3)},
		{name: "its high-S twin", key: key, msg: msg, sig: highS(sig)},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			before, size := calls.Load(), v.Len()
			require.Equal(t, tc.valid, v.Verify(tc.key, tc.msg, tc.sig))
			require.Equal(t, before+1, calls.Load(), "not a hit")
			if !tc.valid {
				require.Equal(t, size, v.Len(), "a refusal is not remembered")
				require.False(t, v.Verify(tc.key, tc.msg, tc.sig))
				require.Equal(t, before+2, calls.Load(), "a refusal is checked again")
				return
			}
			require.Equal(t, size+1, v.Len())
			require.True(t, v.Verify(tc.key, tc.msg, tc.sig))
			require.Equal(t, before+1, calls.Load(), "a hit")
		})
	}
}

// TestVerifierNeverRemembersRefusals: with a verifier that refuses all,
// nothing is ever cached.
func TestVerifierNeverRemembersRefusals(t *testing.T) {
	verify, calls := counting(func([]byte, [sha256.Size]byte, []byte) bool { return false })
	v := sigverify.NewVerifierWith(10, verify)
	key, msg, sig := synthetic(1)
	for i := range 5 {
		require.False(t, v.Verify(key, msg, sig))
		require.EqualValues(t, i+1, calls.Load())
	}
	require.Zero(t, v.Len())
}

// TestVerifierBounded: however many signatures pass, the cache holds at most
// its size, and one in use survives the generations that pass under it.
func TestVerifierBounded(t *testing.T) {
	const size = 8
	verify, calls := counting(func([]byte, [sha256.Size]byte, []byte) bool { return true })
	v := sigverify.NewVerifierWith(size, verify)
	hotKey, hotMsg, hotSig := synthetic(0)
	require.True(t, v.Verify(hotKey, hotMsg, hotSig))
	for i := 1; i <= 1000; i++ {
		key, msg, sig := synthetic(i)
		require.True(t, v.Verify(key, msg, sig))
		require.LessOrEqual(t, v.Len(), size)
		require.True(t, v.Verify(hotKey, hotMsg, hotSig))
		require.EqualValues(t, i+1, calls.Load(), "the hot signature stays cached")
	}
	// An old one that was not used again was dropped.
	key, msg, sig := synthetic(1)
	require.True(t, v.Verify(key, msg, sig))
	require.EqualValues(t, 1002, calls.Load())
}

// TestVerifierLeavesOtherEncodingsToSDK: a key that is not a compressed point
// is checked by the SDK and never cached; a signature of the wrong length is
// refused without a check.
func TestVerifierLeavesOtherEncodingsToSDK(t *testing.T) {
	verify, calls := counting(sigverify.VerifyDigest)
	v := sigverify.NewVerifierWith(10, verify)
	priv := testKey(3)
	msg := []byte("sign doc")
	sig, err := priv.Sign(msg)
	require.NoError(t, err)
	long := uncompressed(t, priv.PubKey().Bytes())

	require.True(t, v.Verify(long, msg, sig), "the SDK accepts an uncompressed key")
	require.False(t, v.Verify(priv.PubKey().Bytes(), msg, sig[:63]))
	require.False(t, v.Verify(priv.PubKey().Bytes(), msg, append(sig, 0)))
	require.Zero(t, calls.Load())
	require.Zero(t, v.Len())
}

// TestVerifierConcurrent: CheckTx and block execution may verify at once
// (run with -race).
func TestVerifierConcurrent(t *testing.T) {
	v := sigverify.NewVerifier(16)
	type triple struct{ key, msg, sig []byte }
	var triples []triple
	for i := range 12 {
		priv := testKey(i)
		msg := []byte{byte(i)}
		sig, err := priv.Sign(msg)
		require.NoError(t, err)
		triples = append(triples, triple{priv.PubKey().Bytes(), msg, sig})
	}
	var wg sync.WaitGroup
	results := make([][]bool, 4)
	for g := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				for _, tr := range triples {
					results[g] = append(results[g], v.Verify(tr.key, tr.msg, tr.sig))
					results[g] = append(results[g], v.Verify(tr.key, tr.msg, highS(tr.sig)))
				}
			}
		}()
	}
	wg.Wait()
	for _, rs := range results {
		for i, ok := range rs {
			require.Equal(t, i%2 == 0, ok)
		}
	}
	require.LessOrEqual(t, v.Len(), 16)
}

// synthetic is a distinct well-formed triple for a stub verifier.
func synthetic(i int) (key, msg, sig []byte) {
	key = make([]byte, sigverify.PubKeySize)
	key[0] = 0x02
	binary.BigEndian.PutUint64(key[1:], uint64(i))
	sig = make([]byte, sigverify.SignatureSize)
	binary.BigEndian.PutUint64(sig, uint64(i))
	return key, []byte{byte(i), byte(i >> 8)}, sig
}

func TestNewVerifierRefusesTinySize(t *testing.T) {
	require.Panics(t, func() { sigverify.NewVerifier(1) })
}
