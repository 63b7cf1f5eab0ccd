package sigverify

import (
	"crypto/sha256"
	"fmt"
	"sync"
)

// DefaultCacheSize bounds the signatures a node's Verifier remembers: far
// more than a full mempool holds between CheckTx and the block that includes
// its txs, in about 8 MiB (BenchmarkCacheMemory).
const DefaultCacheSize = 50_000

// Verifier checks secp256k1 signatures as VerifySecp256k1 does and remembers
// the (key, SHA-256 of the message, signature) triples it accepted, so the
// same signature over the same bytes is checked once however many times the
// node runs the tx (CheckTx, then the block). It memoises a pure
// function and remembers only acceptances, so it can change no verdict.
// Safe for concurrent use.
type Verifier struct {
	// verify checks a signature the cache does not know (verifyDigest).
	verify func(key []byte, digest [sha256.Size]byte, sig []byte) bool

	// Two generations bound the cache without per-entry bookkeeping: new
	// entries go to cur; when cur is full it becomes prev and the old prev
	// is dropped. A hit in prev is copied into cur, so what is still in use
	// survives the next swap.
	mu      sync.Mutex
	cur     map[triple]struct{}
	prev    map[triple]struct{}
	genSize int
}

// triple is a verified signature: key, digest and signature, exactly, so a
// hit needs no argument about hash collisions.
type triple [PubKeySize + sha256.Size + SignatureSize]byte

// NewVerifier returns a Verifier that remembers at most size signatures
// (size ≥ 2).
func NewVerifier(size int) *Verifier {
	if size < 2 {
		panic(fmt.Sprintf("sigverify: cache size %d, need at least 2", size))
	}
	return &Verifier{
		verify:  verifyDigest,
		cur:     make(map[triple]struct{}, size/2),
		genSize: size / 2,
	}
}

// Verify reports whether sig is a signature of msg by key, as
// VerifySecp256k1 does, answering from the cache for a triple it accepted
// before. Keys in another encoding than compressed are not cached.
func (v *Verifier) Verify(key, msg, sig []byte) bool {
	if !isCompressed(key) || len(sig) != SignatureSize {
		return VerifySecp256k1(key, msg, sig)
	}
	digest := sha256.Sum256(msg)
	var t triple
	copy(t[:PubKeySize], key)
	copy(t[PubKeySize:], digest[:])
	copy(t[PubKeySize+sha256.Size:], sig)

	if v.seen(&t) {
		return true
	}
	if !v.verify(key, digest, sig) {
		return false
	}
	v.mu.Lock()
	v.add(&t)
	v.mu.Unlock()
	return true
}

// Len returns how many signatures the cache holds, at most its size.
func (v *Verifier) Len() int {
	v.mu.Lock()
	defer v.mu.Unlock()
	return len(v.cur) + len(v.prev)
}

// seen reports whether t was verified, keeping it in the current generation.
func (v *Verifier) seen(t *triple) bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	if _, ok := v.cur[*t]; ok {
		return true
	}
	if _, ok := v.prev[*t]; ok {
		delete(v.prev, *t)
		v.add(t)
		return true
	}
	return false
}

// add puts t in the current generation, first retiring it if full. v.mu is held.
func (v *Verifier) add(t *triple) {
	if len(v.cur) >= v.genSize {
		v.prev = v.cur
		v.cur = make(map[triple]struct{}, v.genSize)
	}
	v.cur[*t] = struct{}{}
}
