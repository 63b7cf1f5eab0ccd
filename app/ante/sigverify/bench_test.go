package sigverify_test

import (
	"crypto/sha256"
	"runtime"
	"testing"

	gethcrypto "github.com/ethereum/go-ethereum/crypto"

	"github.com/cosmos/cosmos-sdk/crypto/keys/secp256k1"

	"github.com/idlegpu/idlegpu/app/ante/sigverify"
)

// BenchmarkVerify: one signature over a 300-byte sign doc (a bid's is about
// that size) by the SDK's pure-Go code; by VerifySecp256k1 (Backend, which is
// libsecp256k1 in a cgo build, plus SHA-256 and the scalar checks); by
// go-ethereum's VerifySignature alone given a compressed or an uncompressed
// key (the difference is what decompressing costs in C); and by a Verifier,
// as a cache hit and a miss.
func BenchmarkVerify(b *testing.B) {
	priv := testKey(1)
	key := priv.PubKey().Bytes()
	msg := bytesOf(7, 300)
	sig, err := priv.Sign(msg)
	if err != nil {
		b.Fatal(err)
	}
	digest := sha256.Sum256(msg)
	long := uncompressed(b, key)
	b.Logf("backend: %s", sigverify.Backend)

	run := func(name string, verify func() bool) {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if !verify() {
					b.Fatal("refused")
				}
			}
		})
	}
	pk := &secp256k1.PubKey{Key: key}
	run("sdk-purego", func() bool { return pk.VerifySignature(msg, sig) })
	run("sigverify", func() bool { return sigverify.VerifySecp256k1(key, msg, sig) })
	run("geth-compressed", func() bool { return gethcrypto.VerifySignature(key, digest[:], sig) })
	run("geth-uncompressed", func() bool { return gethcrypto.VerifySignature(long, digest[:], sig) })
	hits := sigverify.NewVerifier(sigverify.DefaultCacheSize)
	run("cache-hit", func() bool { return hits.Verify(key, msg, sig) })
	b.Run("cache-miss", func(b *testing.B) {
		// Distinct messages, signed up front, cycled through a cache too
		// small to keep any until it comes round again: every one is checked
		// and stored.
		msgs, sigs := make([][]byte, 1024), make([][]byte, 1024)
		for i := range msgs {
			msgs[i] = append(bytesOf(7, 298), byte(i), byte(i>>8))
			if sigs[i], err = priv.Sign(msgs[i]); err != nil {
				b.Fatal(err)
			}
		}
		v := sigverify.NewVerifier(256)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			if !v.Verify(key, msgs[i], sigs[i]) {
				b.Fatal("refused")
			}
			i = (i + 1) % len(msgs)
		}
	})
}

// BenchmarkCacheMemory reports the heap a full cache of DefaultCacheSize
// signatures holds.
func BenchmarkCacheMemory(b *testing.B) {
	accept := func([]byte, [sha256.Size]byte, []byte) bool { return true }
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		v := sigverify.NewVerifierWith(sigverify.DefaultCacheSize, accept)
		for i := range 2 * sigverify.DefaultCacheSize {
			key, msg, sig := synthetic(i)
			v.Verify(key, msg, sig)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/(1<<20), "MiB")
		runtime.KeepAlive(v)
	}
}
