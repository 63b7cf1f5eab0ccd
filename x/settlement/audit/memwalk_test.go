package audit

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

func seed(b byte) []byte {
	s := make([]byte, SeedSize)
	for i := range s {
		s[i] = b + byte(i)
	}
	return s
}

// small is a shape the CPU runs in milliseconds.
var small = Shape{TableItems: CacheItems + 123, Lanes: 8, Segments: 4, SegmentSteps: 20}

// TestMemWalkVectors pins the workload: any other implementation (the
// agent's CUDA kernels) must produce these bytes. The digest is sha256 over
// the whole transcript's states. They were cross-checked with
// testdata/memwalk_v1.py, an independent implementation of the spec.
func TestMemWalkVectors(t *testing.T) {
	c, err := NewCache(seed(1))
	require.NoError(t, err)
	var it [ItemWords]uint32
	c.Item(0, &it)
	require.Equal(t, [ItemWords]uint32{0xb3d75235, 0x0e7b865d, 0x20bdf6d6, 0x842c0d3a, 0x246a855b, 0x921e1507, 0xc17258d6, 0x97f838e1,
		0x1602d605, 0x8636ccd4, 0xe463c557, 0x0af56d9d, 0xae79879a, 0x6b242522, 0x83ebc24a, 0x7e1404af}, it)
	for _, tc := range []struct {
		seed  []byte
		shape Shape
		want  string
	}{
		{make([]byte, SeedSize), small, "ca7d81958eb017c34d59204255dcde59e719451b48e07a29930c0ce5868684ad"},
		{seed(1), small, "8b4ef374a70ee58af8d611057855e432c3a9b18e547d2c840d0c9529d00cda84"},
		{seed(1), Shape{TableItems: CacheItems, Lanes: 1, Segments: 1, SegmentSteps: 1}, "5920e2bede7ab1d9ae85ed02a1667844d144041cbbc8160d35e062bdfd460313"},
	} {
		st, err := Run(context.Background(), tc.seed, tc.shape)
		require.NoError(t, err)
		sum := sha256.Sum256(st)
		require.Equal(t, tc.want, hex.EncodeToString(sum[:]), "seed %x shape %+v", tc.seed, tc.shape)
	}
}

// TestLightEqualsFull: the chain's recomputation of a segment from the
// cache (what a verifier, or a device without the table, does) is the
// honest device's walk over the full table, for every leaf.
func TestLightEqualsFull(t *testing.T) {
	s := seed(3)
	c, err := NewCache(s)
	require.NoError(t, err)
	st, err := Run(context.Background(), s, small)
	require.NoError(t, err)
	for i := range small.Leaves() {
		state, err := StateFromBytes(st.Leaf(i))
		require.NoError(t, err)
		o := Opening{Index: i, State: state}
		if small.NeedsPrev(i) {
			o.Prev, err = StateFromBytes(st.Leaf(i - 1))
			require.NoError(t, err)
		}
		ok, err := CheckSegment(c, s, small, o)
		require.NoError(t, err)
		require.True(t, ok, "leaf %d", i)
		o.State[i%StateWords] ^= 1
		ok, err = CheckSegment(c, s, small, o)
		require.NoError(t, err)
		require.False(t, ok, "leaf %d with one bit flipped", i)
	}
	_, err = CheckSegment(c, s, small, Opening{Index: small.Leaves()})
	require.ErrorContains(t, err, "outside a transcript of 32")
}

// TestEverythingMatters: the seed, every table item and every step change
// the transcript; the result does not depend on how many CPUs run it.
func TestEverythingMatters(t *testing.T) {
	ctx := context.Background()
	a, err := Run(ctx, seed(7), small)
	require.NoError(t, err)
	b, err := Run(ctx, seed(7), small)
	require.NoError(t, err)
	require.Equal(t, a, b, "deterministic")
	other := seed(7)
	other[31] ^= 1
	c, err := Run(ctx, other, small)
	require.NoError(t, err)
	require.NotEqual(t, a[:StateBytes], c[:StateBytes], "one seed bit changes the first leaf")
	bigger := small
	bigger.TableItems++
	d, err := Run(ctx, seed(7), bigger)
	require.NoError(t, err)
	require.NotEqual(t, a, d, "the table size is part of the walk")
	longer := small
	longer.SegmentSteps++
	e, err := Run(ctx, seed(7), longer)
	require.NoError(t, err)
	require.NotEqual(t, a[:StateBytes], e[:StateBytes], "one more step changes every leaf")
}

func TestRunRejects(t *testing.T) {
	_, err := Run(context.Background(), seed(1)[:31], small)
	require.ErrorContains(t, err, "seed must be 32 bytes")
	_, err = Run(context.Background(), seed(1), Shape{TableItems: 10, Lanes: 1, Segments: 1, SegmentSteps: 1})
	require.ErrorContains(t, err, "below the least")
	_, err = Run(context.Background(), seed(1), Shape{TableItems: CacheItems, Lanes: 3, Segments: 1, SegmentSteps: 1})
	require.ErrorContains(t, err, "powers of two")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = Run(ctx, seed(1), small)
	require.ErrorIs(t, err, context.Canceled)
}

// TestSampleLeaves: k distinct sorted leaves, a function of every input,
// every leaf when there are no more than k.
func TestSampleLeaves(t *testing.T) {
	root := make([]byte, 32)
	got := SampleLeaves([]byte("block"), 1, root, 1<<26, 16)
	require.Len(t, got, 16)
	for i := 1; i < len(got); i++ {
		require.Less(t, got[i-1], got[i])
	}
	require.Equal(t, got, SampleLeaves([]byte("block"), 1, root, 1<<26, 16))
	require.NotEqual(t, got, SampleLeaves([]byte("block"), 2, root, 1<<26, 16))
	require.NotEqual(t, got, SampleLeaves([]byte("other"), 1, root, 1<<26, 16))
	root[0] = 1
	require.NotEqual(t, got, SampleLeaves([]byte("block"), 1, root, 1<<26, 16), "the root is committed before the draw")
	require.Equal(t, []uint64{0, 1, 2}, SampleLeaves([]byte("block"), 1, root, 3, 16))
	require.Len(t, SampleLeaves([]byte("block"), 1, root, 17, 16), 16, "distinct even when leaves barely exceed k")
}

// TestSamplesAreUniform: over many draws every leaf of a small transcript
// is sampled about equally often (χ² well under its 99.9% bound).
func TestSamplesAreUniform(t *testing.T) {
	const leaves, k, draws = 64, 4, 20_000
	var counts [leaves]float64
	for d := range uint64(draws) {
		for _, l := range SampleLeaves(binary.BigEndian.AppendUint64(nil, d), d, make([]byte, 32), leaves, k) {
			counts[l]++
		}
	}
	want := float64(draws*k) / leaves
	chi2 := 0.0
	for _, c := range counts {
		chi2 += (c - want) * (c - want) / want
	}
	require.Less(t, chi2, 103.4, "63 degrees of freedom, p = 0.001") // χ²₀.₉₉₉(63) ≈ 103.4
}

// TestCatchBound is the property the chain relies on: a transcript wrong
// in a fraction f of its leaves is caught (a sampled leaf recomputes to
// another state) with probability at least 1 − (1 − f)^k. Over many seeds,
// the observed catch rate is at least the bound less three standard errors.
func TestCatchBound(t *testing.T) {
	const leaves = 1 << 10
	for _, tc := range []struct {
		wrong   int // leaves wrong of 1024
		k       uint32
		samples int
	}{
		{1, 16, 4000}, {52, 16, 2000}, {205, 16, 2000}, {512, 8, 2000}, {512, 16, 1000},
	} {
		f := float64(tc.wrong) / leaves
		bound := 1 - math.Pow(1-f, float64(tc.k))
		caught := 0
		for seed := range uint64(tc.samples) {
			// Which leaves are wrong is the cheater's choice, made before the
			// draw: here a seed-dependent set of tc.wrong leaves.
			wrong := map[uint64]bool{}
			for j := uint64(0); len(wrong) < tc.wrong; j++ {
				h := sha256.Sum256(binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint64(nil, seed), j))
				wrong[binary.BigEndian.Uint64(h[:])%leaves] = true
			}
			root := sha256.Sum256(binary.BigEndian.AppendUint64(nil, seed))
			for _, l := range SampleLeaves(root[:], seed, root[:], leaves, tc.k) {
				if wrong[l] {
					caught++
					break
				}
			}
		}
		rate := float64(caught) / float64(tc.samples)
		se := math.Sqrt(bound * (1 - bound) / float64(tc.samples))
		require.GreaterOrEqual(t, rate, bound-3*se-1e-9, "f=%.3f k=%d: caught %.4f, bound %.4f", f, tc.k, rate, bound)
	}
}

// TestShapeFor: a board's table is the least number of items holding 90%
// of its memory; lanes shrink only for small memories.
func TestShapeFor(t *testing.T) {
	h100, err := ShapeFor(81559)
	require.NoError(t, err)
	require.Equal(t, Shape{TableItems: 1202636391, Lanes: BoardLanes, Segments: BoardSegments, SegmentSteps: 4588}, h100)
	require.GreaterOrEqual(t, h100.Reads(), uint64(ReadsPerItem)*uint64(h100.TableItems))
	sim, err := ShapeFor(2)
	require.NoError(t, err)
	require.Equal(t, Shape{TableItems: 29492, Lanes: 1024, Segments: BoardSegments, SegmentSteps: 116}, sim)
	_, err = ShapeFor(1)
	require.ErrorContains(t, err, "below the least")
	_, err = ShapeFor(400_000)
	require.ErrorContains(t, err, "beyond memwalk/v1's 2^32-item table")
	tm := TimingFor(h100, 3350)
	require.Equal(t, Timing{BuildMs: 5882, WalkMs: 23529}, tm)
	require.Equal(t, Timing{}, TimingFor(h100, 0))
	huge := Shape{TableItems: math.MaxUint32, Lanes: 1 << 14, Segments: 1 << 14, SegmentSteps: MaxSegmentSteps}
	require.Equal(t, Timing{BuildMs: 70_368_745, WalkMs: 4_503_599_628}, TimingFor(huge, 1), "no overflow")
}

func FuzzStateFromBytes(f *testing.F) {
	f.Add(make([]byte, 32))
	f.Add([]byte{1, 2, 3})
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := StateFromBytes(b)
		if (err == nil) != (len(b) == StateBytes) {
			t.Fatalf("%d bytes: %v", len(b), err)
		}
		if err == nil && string(s.Bytes()) != string(b) {
			t.Fatalf("%x round-trips to %x", b, s.Bytes())
		}
	})
}
