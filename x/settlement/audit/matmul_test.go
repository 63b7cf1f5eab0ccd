package audit

import (
	"context"
	"encoding/hex"
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

// TestMatMulV1Vectors pins the workload's output: any other implementation
// (the agent's GPU kernel) must produce these bytes. They were cross-checked
// with testdata/matmul_v1.py, an independent implementation of the spec.
func TestMatMulV1Vectors(t *testing.T) {
	for _, tc := range []struct {
		seed  []byte
		units uint64
		want  string
	}{
		{make([]byte, SeedSize), 1, "14b0afb3f60d86e82133416b8af18a42142db06e7197532ad9740e9f7cc9713a"},
		{seed(1), 1, "3db0af736bc84be039eb255c701120b8522d6a5403a5a709a8c3da264a3302c0"},
		{seed(1), 3, "f92b0a1c499ad71bbf9a76dcb524b957e99966ed063605d825864db3d680c1f7"},
	} {
		got, err := MatMulV1{}.Run(context.Background(), tc.seed, tc.units)
		require.NoError(t, err)
		require.Equal(t, tc.want, hex.EncodeToString(got[:]), "seed %x units %d", tc.seed, tc.units)
	}
}

func TestMatMulV1IsSensitive(t *testing.T) {
	ctx := context.Background()
	a, err := MatMulV1{}.Run(ctx, seed(7), 2)
	require.NoError(t, err)
	again, err := MatMulV1{}.Run(ctx, seed(7), 2)
	require.NoError(t, err)
	require.Equal(t, a, again, "deterministic")
	other := seed(7)
	other[31] ^= 1
	b, err := MatMulV1{}.Run(ctx, other, 2)
	require.NoError(t, err)
	require.NotEqual(t, a, b, "one seed bit changes the result")
	c, err := MatMulV1{}.Run(ctx, seed(7), 3)
	require.NoError(t, err)
	require.NotEqual(t, a, c, "one more unit changes the result")
}

func TestMatMulV1Rejects(t *testing.T) {
	_, err := MatMulV1{}.Run(context.Background(), seed(1)[:31], 1)
	require.ErrorContains(t, err, "seed must be 32 bytes")
	_, err = MatMulV1{}.Run(context.Background(), seed(1), 0)
	require.ErrorContains(t, err, "at least 1")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = MatMulV1{}.Run(ctx, seed(1), 1)
	require.ErrorIs(t, err, context.Canceled)
}

// TestMultiplyIsTheMatrixProduct checks the loop order against the textbook
// definition on random matrices, and the identity.
func TestMultiplyIsTheMatrixProduct(t *testing.T) {
	const n = MatMulDim
	a, b := expand(seed(3), 'A'), expand(seed(3), 'B')
	got := make([]uint32, n*n)
	multiply(got, a, b)
	for _, ij := range [][2]int{{0, 0}, {0, n - 1}, {n - 1, 0}, {17, 200}, {n - 1, n - 1}} {
		var want uint32
		for k := range n {
			want += a[ij[0]*n+k] * b[k*n+ij[1]]
		}
		require.Equal(t, want, got[ij[0]*n+ij[1]], "entry %v", ij)
	}
	id := make([]uint32, n*n)
	for i := range n {
		id[i*n+i] = 1
	}
	multiply(got, a, id)
	require.Equal(t, a, got)
}

func TestCommitmentAndRegistry(t *testing.T) {
	var salt, expected [32]byte
	salt[0], expected[31] = 1, 2
	c := Commitment(salt, expected)
	require.Equal(t, "dbab7f85ece1b391596ed5343e75b9f729a0d1e104e7f90263ebfd50f622b27c", hex.EncodeToString(c[:]))
	require.NotEqual(t, c, Commitment(expected, salt))
	require.True(t, IsKnown(MatMulV1Name))
	require.False(t, IsKnown("idlegpu/matmul-u32/v0"))
	w, err := Reference(MatMulV1Name)
	require.NoError(t, err)
	require.Equal(t, MatMulV1Name, w.Name())
	_, err = Reference("nope")
	require.Error(t, err)
}

// BenchmarkMatMulV1Unit measures the CPU reference's speed per unit, for
// comparison with the gpu_models table's audit_units_per_second.
func BenchmarkMatMulV1Unit(b *testing.B) {
	s := seed(9)
	for b.Loop() {
		if _, err := (MatMulV1{}).Run(context.Background(), s, 1); err != nil {
			b.Fatal(err)
		}
	}
}
