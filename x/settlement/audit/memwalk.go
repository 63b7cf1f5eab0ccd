package audit

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
)

// MemWalkV1Name names the memory-hard audit workload, version 1.
const MemWalkV1Name = "idlegpu/memwalk/v1"

// The workload's fixed dimensions (docs/design.md#audits).
const (
	// ItemWords is the size of a cache or table item in 32-bit words (64
	// bytes: one HBM burst, one CPU cache line).
	ItemWords = 16
	// ItemBytes is the size of an item in bytes.
	ItemBytes = 4 * ItemWords
	// CacheItems is the number of items in the seed's cache (1 MiB): small
	// enough for a verifier to build per audit, too large for a GPU's
	// per-SM shared memory.
	CacheItems = 1 << 14
	// Parents is the number of cache items mixed into one table item
	// (Ethash's DATASET_PARENTS): deriving an item without the table costs
	// this many random cache reads instead of one table read.
	Parents = 256
	// StateWords is the size of a lane's state in 32-bit words; a state is
	// one transcript leaf (32 bytes).
	StateWords = 8
	// StateBytes is the size of a lane state in bytes.
	StateBytes = 4 * StateWords
	// SeedSize is the size of an audit seed.
	SeedSize = 32
)

// State is one lane's 32-byte state, the transcript's leaf.
type State [StateWords]uint32

// Bytes encodes the state as big-endian words (the transcript leaf).
func (s State) Bytes() []byte {
	out := make([]byte, StateBytes)
	for i, w := range s {
		binary.BigEndian.PutUint32(out[4*i:], w)
	}
	return out
}

// StateFromBytes decodes a 32-byte transcript leaf.
func StateFromBytes(b []byte) (State, error) {
	var s State
	if len(b) != StateBytes {
		return s, fmt.Errorf("a lane state is %d bytes, got %d", StateBytes, len(b))
	}
	for i := range s {
		s[i] = binary.BigEndian.Uint32(b[4*i:])
	}
	return s, nil
}

// Cache is the seed's cache: CacheItems items.
type Cache [][ItemWords]uint32

// NewCache expands a seed into its cache: item i is the 64 bytes
// sha256(tag ‖ seed ‖ u32be(i) ‖ 0x00) ‖ sha256(tag ‖ seed ‖ u32be(i) ‖ 0x01)
// read as 16 big-endian words, with tag "idlegpu/memwalk/v1/cache".
func NewCache(seed []byte) (Cache, error) {
	if len(seed) != SeedSize {
		return nil, fmt.Errorf("seed must be %d bytes, got %d", SeedSize, len(seed))
	}
	c := make(Cache, CacheItems)
	msg := make([]byte, 0, 64)
	msg = append(append(msg, MemWalkV1Name+"/cache"...), seed...)
	n := len(msg)
	for i := range uint32(CacheItems) {
		for half := range 2 {
			m := append(binary.BigEndian.AppendUint32(msg[:n], i), byte(half))
			sum := sha256.Sum256(m)
			for j := range 8 {
				c[i][8*half+j] = binary.BigEndian.Uint32(sum[4*j:])
			}
		}
	}
	return c, nil
}

// Words is the cache as CacheItems·ItemWords words, item by item: what a
// device uploads.
func (c Cache) Words() []uint32 {
	out := make([]uint32, 0, len(c)*ItemWords)
	for i := range c {
		out = append(out, c[i][:]...)
	}
	return out
}

// fnv is Ethash's FNV-1 step, (a · 0x01000193) ⊕ b mod 2³².
func fnv(a, b uint32) uint32 { return a*0x01000193 ^ b }

// Item computes table item j from the cache (as Ethash's
// calc_dataset_item, with lowbias32 in place of Keccak at the ends):
//
//	mix = cache[j mod CacheItems]; mix[0] ^= j; mix = lowbias32 of each word
//	for p in 0..Parents-1:
//	    parent = fnv(j ⊕ p, mix[p mod 16]) mod CacheItems
//	    mix[w] = fnv(mix[w], cache[parent][w])   for each word w
//	item = lowbias32 of each word of mix
//
// It is what the verifier computes for each table read it checks, and what
// a device without the table pays for each read: Parents random cache
// reads instead of one.
func (c Cache) Item(j uint32, out *[ItemWords]uint32) {
	mix := c[j%CacheItems]
	mix[0] ^= j
	// The 16 words live in locals: a chain of Parents dependent mixes
	// through an array in memory runs several times slower.
	m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15 := lowbias32(mix[0]), lowbias32(mix[1]), lowbias32(mix[2]), lowbias32(mix[3]), lowbias32(mix[4]), lowbias32(mix[5]), lowbias32(mix[6]), lowbias32(mix[7]), lowbias32(mix[8]), lowbias32(mix[9]), lowbias32(mix[10]), lowbias32(mix[11]), lowbias32(mix[12]), lowbias32(mix[13]), lowbias32(mix[14]), lowbias32(mix[15])
	for p := uint32(0); p < Parents; p += ItemWords {
		par := &c[fnv(j^(p+0), m0)%CacheItems]
		m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15 = fnv(m0, par[0]), fnv(m1, par[1]), fnv(m2, par[2]), fnv(m3, par[3]), fnv(m4, par[4]), fnv(m5, par[5]), fnv(m6, par[6]), fnv(m7, par[7]), fnv(m8, par[8]), fnv(m9, par[9]), fnv(m10, par[10]), fnv(m11, par[11]), fnv(m12, par[12]), fnv(m13, par[13]), fnv(m14, par[14]), fnv(m15, par[15])
		par = &c[fnv(j^(p+1), m1)%CacheItems]
		m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15 = fnv(m0, par[0]), fnv(m1, par[1]), fnv(m2, par[2]), fnv(m3, par[3]), fnv(m4, par[4]), fnv(m5, par[5]), fnv(m6, par[6]), fnv(m7, par[7]), fnv(m8, par[8]), fnv(m9, par[9]), fnv(m10, par[10]), fnv(m11, par[11]), fnv(m12, par[12]), fnv(m13, par[13]), fnv(m14, par[14]), fnv(m15, par[15])
		par = &c[fnv(j^(p+2), m2)%CacheItems]
		m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15 = fnv(m0, par[0]), fnv(m1, par[1]), fnv(m2, par[2]), fnv(m3, par[3]), fnv(m4, par[4]), fnv(m5, par[5]), fnv(m6, par[6]), fnv(m7, par[7]), fnv(m8, par[8]), fnv(m9, par[9]), fnv(m10, par[10]), fnv(m11, par[11]), fnv(m12, par[12]), fnv(m13, par[13]), fnv(m14, par[14]), fnv(m15, par[15])
		par = &c[fnv(j^(p+3), m3)%CacheItems]
		m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15 = fnv(m0, par[0]), fnv(m1, par[1]), fnv(m2, par[2]), fnv(m3, par[3]), fnv(m4, par[4]), fnv(m5, par[5]), fnv(m6, par[6]), fnv(m7, par[7]), fnv(m8, par[8]), fnv(m9, par[9]), fnv(m10, par[10]), fnv(m11, par[11]), fnv(m12, par[12]), fnv(m13, par[13]), fnv(m14, par[14]), fnv(m15, par[15])
		par = &c[fnv(j^(p+4), m4)%CacheItems]
		m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15 = fnv(m0, par[0]), fnv(m1, par[1]), fnv(m2, par[2]), fnv(m3, par[3]), fnv(m4, par[4]), fnv(m5, par[5]), fnv(m6, par[6]), fnv(m7, par[7]), fnv(m8, par[8]), fnv(m9, par[9]), fnv(m10, par[10]), fnv(m11, par[11]), fnv(m12, par[12]), fnv(m13, par[13]), fnv(m14, par[14]), fnv(m15, par[15])
		par = &c[fnv(j^(p+5), m5)%CacheItems]
		m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15 = fnv(m0, par[0]), fnv(m1, par[1]), fnv(m2, par[2]), fnv(m3, par[3]), fnv(m4, par[4]), fnv(m5, par[5]), fnv(m6, par[6]), fnv(m7, par[7]), fnv(m8, par[8]), fnv(m9, par[9]), fnv(m10, par[10]), fnv(m11, par[11]), fnv(m12, par[12]), fnv(m13, par[13]), fnv(m14, par[14]), fnv(m15, par[15])
		par = &c[fnv(j^(p+6), m6)%CacheItems]
		m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15 = fnv(m0, par[0]), fnv(m1, par[1]), fnv(m2, par[2]), fnv(m3, par[3]), fnv(m4, par[4]), fnv(m5, par[5]), fnv(m6, par[6]), fnv(m7, par[7]), fnv(m8, par[8]), fnv(m9, par[9]), fnv(m10, par[10]), fnv(m11, par[11]), fnv(m12, par[12]), fnv(m13, par[13]), fnv(m14, par[14]), fnv(m15, par[15])
		par = &c[fnv(j^(p+7), m7)%CacheItems]
		m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15 = fnv(m0, par[0]), fnv(m1, par[1]), fnv(m2, par[2]), fnv(m3, par[3]), fnv(m4, par[4]), fnv(m5, par[5]), fnv(m6, par[6]), fnv(m7, par[7]), fnv(m8, par[8]), fnv(m9, par[9]), fnv(m10, par[10]), fnv(m11, par[11]), fnv(m12, par[12]), fnv(m13, par[13]), fnv(m14, par[14]), fnv(m15, par[15])
		par = &c[fnv(j^(p+8), m8)%CacheItems]
		m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15 = fnv(m0, par[0]), fnv(m1, par[1]), fnv(m2, par[2]), fnv(m3, par[3]), fnv(m4, par[4]), fnv(m5, par[5]), fnv(m6, par[6]), fnv(m7, par[7]), fnv(m8, par[8]), fnv(m9, par[9]), fnv(m10, par[10]), fnv(m11, par[11]), fnv(m12, par[12]), fnv(m13, par[13]), fnv(m14, par[14]), fnv(m15, par[15])
		par = &c[fnv(j^(p+9), m9)%CacheItems]
		m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15 = fnv(m0, par[0]), fnv(m1, par[1]), fnv(m2, par[2]), fnv(m3, par[3]), fnv(m4, par[4]), fnv(m5, par[5]), fnv(m6, par[6]), fnv(m7, par[7]), fnv(m8, par[8]), fnv(m9, par[9]), fnv(m10, par[10]), fnv(m11, par[11]), fnv(m12, par[12]), fnv(m13, par[13]), fnv(m14, par[14]), fnv(m15, par[15])
		par = &c[fnv(j^(p+10), m10)%CacheItems]
		m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15 = fnv(m0, par[0]), fnv(m1, par[1]), fnv(m2, par[2]), fnv(m3, par[3]), fnv(m4, par[4]), fnv(m5, par[5]), fnv(m6, par[6]), fnv(m7, par[7]), fnv(m8, par[8]), fnv(m9, par[9]), fnv(m10, par[10]), fnv(m11, par[11]), fnv(m12, par[12]), fnv(m13, par[13]), fnv(m14, par[14]), fnv(m15, par[15])
		par = &c[fnv(j^(p+11), m11)%CacheItems]
		m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15 = fnv(m0, par[0]), fnv(m1, par[1]), fnv(m2, par[2]), fnv(m3, par[3]), fnv(m4, par[4]), fnv(m5, par[5]), fnv(m6, par[6]), fnv(m7, par[7]), fnv(m8, par[8]), fnv(m9, par[9]), fnv(m10, par[10]), fnv(m11, par[11]), fnv(m12, par[12]), fnv(m13, par[13]), fnv(m14, par[14]), fnv(m15, par[15])
		par = &c[fnv(j^(p+12), m12)%CacheItems]
		m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15 = fnv(m0, par[0]), fnv(m1, par[1]), fnv(m2, par[2]), fnv(m3, par[3]), fnv(m4, par[4]), fnv(m5, par[5]), fnv(m6, par[6]), fnv(m7, par[7]), fnv(m8, par[8]), fnv(m9, par[9]), fnv(m10, par[10]), fnv(m11, par[11]), fnv(m12, par[12]), fnv(m13, par[13]), fnv(m14, par[14]), fnv(m15, par[15])
		par = &c[fnv(j^(p+13), m13)%CacheItems]
		m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15 = fnv(m0, par[0]), fnv(m1, par[1]), fnv(m2, par[2]), fnv(m3, par[3]), fnv(m4, par[4]), fnv(m5, par[5]), fnv(m6, par[6]), fnv(m7, par[7]), fnv(m8, par[8]), fnv(m9, par[9]), fnv(m10, par[10]), fnv(m11, par[11]), fnv(m12, par[12]), fnv(m13, par[13]), fnv(m14, par[14]), fnv(m15, par[15])
		par = &c[fnv(j^(p+14), m14)%CacheItems]
		m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15 = fnv(m0, par[0]), fnv(m1, par[1]), fnv(m2, par[2]), fnv(m3, par[3]), fnv(m4, par[4]), fnv(m5, par[5]), fnv(m6, par[6]), fnv(m7, par[7]), fnv(m8, par[8]), fnv(m9, par[9]), fnv(m10, par[10]), fnv(m11, par[11]), fnv(m12, par[12]), fnv(m13, par[13]), fnv(m14, par[14]), fnv(m15, par[15])
		par = &c[fnv(j^(p+15), m15)%CacheItems]
		m0, m1, m2, m3, m4, m5, m6, m7, m8, m9, m10, m11, m12, m13, m14, m15 = fnv(m0, par[0]), fnv(m1, par[1]), fnv(m2, par[2]), fnv(m3, par[3]), fnv(m4, par[4]), fnv(m5, par[5]), fnv(m6, par[6]), fnv(m7, par[7]), fnv(m8, par[8]), fnv(m9, par[9]), fnv(m10, par[10]), fnv(m11, par[11]), fnv(m12, par[12]), fnv(m13, par[13]), fnv(m14, par[14]), fnv(m15, par[15])
	}
	*out = [ItemWords]uint32{lowbias32(m0), lowbias32(m1), lowbias32(m2), lowbias32(m3), lowbias32(m4), lowbias32(m5), lowbias32(m6), lowbias32(m7), lowbias32(m8), lowbias32(m9), lowbias32(m10), lowbias32(m11), lowbias32(m12), lowbias32(m13), lowbias32(m14), lowbias32(m15)}
}

// LaneStart is lane l's state before its first step:
// sha256("idlegpu/memwalk/v1/lane" ‖ seed ‖ u32be(l)) as 8 big-endian words.
func LaneStart(seed []byte, lane uint32) State {
	m := append(append([]byte(MemWalkV1Name+"/lane"), seed...), 0, 0, 0, 0)
	binary.BigEndian.PutUint32(m[len(m)-4:], lane)
	sum := sha256.Sum256(m)
	var s State
	for i := range s {
		s[i] = binary.BigEndian.Uint32(sum[4*i:])
	}
	return s
}

// StepIndex is the table item that step t of a lane in state s reads:
// fnv(t ⊕ s[0], s[t mod 8]) mod items. Each read depends on the state the
// previous read left, so a lane's reads cannot be prefetched or reordered.
func StepIndex(s *State, t, items uint32) uint32 {
	return fnv(t^s[0], s[t%StateWords]) % items
}

// Step mixes the table item read at step t into the state:
// s[w] = lowbias32(fnv(s[w], item[w]) ⊕ item[w+8]).
func Step(s *State, item *[ItemWords]uint32) {
	for w := range s {
		s[w] = lowbias32(fnv(s[w], item[w]) ^ item[w+StateWords])
	}
}

// Table is a seed's whole table as a device (or the CPU reference) holds it:
// item j at [ItemWords·j, ItemWords·(j+1)).
type Table []uint32

// NewTable computes every item of a table of n items.
func NewTable(c Cache, n uint32) Table {
	t := make(Table, int(n)*ItemWords)
	var it [ItemWords]uint32
	for j := range n {
		c.Item(j, &it)
		copy(t[int(j)*ItemWords:], it[:])
	}
	return t
}

// item returns table item j.
func (t Table) item(j uint32) *[ItemWords]uint32 {
	return (*[ItemWords]uint32)(t[int(j)*ItemWords : int(j+1)*ItemWords])
}

// Segment runs one segment of a lane from state s, reading the full table:
// steps first..first+steps-1, the way an honest device runs it.
func (t Table) Segment(s State, first, steps uint32) State {
	items := uint32(len(t) / ItemWords)
	for step := first; step < first+steps; step++ {
		Step(&s, t.item(StepIndex(&s, step, items)))
	}
	return s
}

// LightSegment runs the same segment deriving each read item from the cache
// instead of a table: what the chain does to check one revealed segment.
func (c Cache) LightSegment(s State, first, steps, items uint32) State {
	var it [ItemWords]uint32
	for step := first; step < first+steps; step++ {
		c.Item(StepIndex(&s, step, items), &it)
		Step(&s, &it)
	}
	return s
}

// lowbias32 is Chris Wellons' 32-bit integer hash: a bijection with strong
// avalanche, so neither the items nor the walk can be collapsed
// algebraically.
func lowbias32(x uint32) uint32 {
	x ^= x >> 16
	x *= 0x7feb352d
	x ^= x >> 15
	x *= 0x846ca68b
	x ^= x >> 16
	return x
}
