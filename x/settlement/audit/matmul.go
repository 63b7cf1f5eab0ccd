package audit

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
)

// MatMulV1Name names the matmul-u32 workload, version 1.
const MatMulV1Name = "idlegpu/matmul-u32/v1"

// MatMulDim is the side of the workload's square matrices.
const MatMulDim = 256

// SeedSize is the size of an audit seed.
const SeedSize = 32

// MatMulV1 is the reference implementation of idlegpu/matmul-u32/v1:
//
//	A, B = two 256×256 matrices of uint32 expanded from the seed:
//	       word i of matrix T ∈ {"A","B"} is big-endian word (i mod 8) of
//	       sha256("idlegpu/matmul-u32/v1" ‖ T ‖ seed ‖ uint32be(i / 8))
//	M₀ = A
//	M_r = mix(M_{r-1} × B + r)   for r = 1..units, arithmetic mod 2³²,
//	      applied to every entry: mix(x) = lowbias32(x)
//	result = sha256("idlegpu/matmul-u32/v1" ‖ uint64be(units) ‖ M_units as big-endian words, row-major)
//
// One unit is one 256³ multiply-add product (16.8 M integer MACs): a GPU does
// it in microseconds, in parallel, while the nonlinear mix between rounds
// rules out shortcuts such as squaring B. The rounds form a chain, so the
// time taken measures the hardware's throughput on the product itself.
type MatMulV1 struct{}

// Name implements Workload.
func (MatMulV1) Name() string { return MatMulV1Name }

// Run implements Workload.
func (MatMulV1) Run(ctx context.Context, seed []byte, units uint64) ([ResultSize]byte, error) {
	var out [ResultSize]byte
	if len(seed) != SeedSize {
		return out, fmt.Errorf("seed must be %d bytes, got %d", SeedSize, len(seed))
	}
	if units == 0 {
		return out, fmt.Errorf("work units must be at least 1")
	}
	m, b := MatMulInputs(seed)
	next := make([]uint32, MatMulDim*MatMulDim)
	for r := uint64(1); r <= units; r++ {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		MatMulRound(next, m, b, uint32(r))
		m, next = next, m
	}
	return MatMulDigest(units, m), nil
}

// MatMulInputs are the round-0 matrices A (M₀) and B expanded from a seed;
// every implementation (the CPU reference, the agent's GPU kernel) starts
// from these.
func MatMulInputs(seed []byte) (a, b []uint32) {
	return expand(seed, 'A'), expand(seed, 'B')
}

// MatMulRound computes one round, dst = mix(m × b + r), entry by entry.
func MatMulRound(dst, m, b []uint32, r uint32) {
	multiply(dst, m, b)
	for i, x := range dst {
		dst[i] = lowbias32(x + r)
	}
}

// MatMulDigest is the result over the last round's matrix.
func MatMulDigest(units uint64, m []uint32) [ResultSize]byte {
	var out [ResultSize]byte
	h := sha256.New()
	h.Write([]byte(MatMulV1Name))
	h.Write(binary.BigEndian.AppendUint64(nil, units))
	buf := make([]byte, 4*len(m))
	for i, x := range m {
		binary.BigEndian.PutUint32(buf[4*i:], x)
	}
	h.Write(buf)
	copy(out[:], h.Sum(nil))
	return out
}

// expand fills a matrix from the seed with counter-mode sha256.
func expand(seed []byte, tag byte) []uint32 {
	out := make([]uint32, MatMulDim*MatMulDim)
	prefix := append(append([]byte(MatMulV1Name), tag), seed...)
	for block := 0; block*8 < len(out); block++ {
		sum := sha256.Sum256(binary.BigEndian.AppendUint32(prefix[:len(prefix):len(prefix)], uint32(block)))
		for j := range 8 {
			out[block*8+j] = binary.BigEndian.Uint32(sum[4*j:])
		}
	}
	return out
}

// multiply sets dst = a × b (row-major, mod 2³²); the i-k-j order streams
// rows of b, which is what makes the reference usable on a CPU for tests.
func multiply(dst, a, b []uint32) {
	const n = MatMulDim
	clear(dst)
	for i := range n {
		row := dst[i*n : (i+1)*n]
		for k := range n {
			aik := a[i*n+k]
			bk := b[k*n : (k+1)*n]
			for j := range n {
				row[j] += aik * bk[j]
			}
		}
	}
}

// lowbias32 is Chris Wellons' 32-bit integer hash: a bijection with strong
// avalanche, so the rounds cannot be collapsed algebraically.
func lowbias32(x uint32) uint32 {
	x ^= x >> 16
	x *= 0x7feb352d
	x ^= x >> 15
	x *= 0x846ca68b
	x ^= x >> 16
	return x
}

// Commitment is the auditor's commitment to an expected result:
// sha256(salt ‖ expected).
func Commitment(salt, expected [32]byte) [32]byte {
	return sha256.Sum256(append(salt[:], expected[:]...))
}
