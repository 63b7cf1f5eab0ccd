package types_test

import (
	"encoding/hex"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/x/settlement/types"
)

func unhex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	require.NoError(t, err)
	return b
}

// ctLeaves are RFC 6962's reference inputs (certificate-transparency test data).
var ctLeaves = []string{"", "00", "10", "2021", "3031", "40414243", "5051525354555657", "606162636465666768696a6b6c6d6e6f"}

// ctRoots are the published tree heads for sizes 0..8.
var ctRoots = []string{
	"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
	"6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
	"fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
	"aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
	"d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
	"4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
	"76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
	"ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
	"5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
}

func ctLeafHashes(t *testing.T) [][]byte {
	out := make([][]byte, len(ctLeaves))
	for i, l := range ctLeaves {
		out[i] = types.LeafHash(unhex(t, l))
	}
	return out
}

// TestMerkleRootMatchesRFC6962: our tree is Certificate Transparency's, so
// any CT library can check a samples root.
func TestMerkleRootMatchesRFC6962(t *testing.T) {
	leaves := ctLeafHashes(t)
	for n := 0; n <= len(leaves); n++ {
		require.Equal(t, ctRoots[n], hex.EncodeToString(types.MerkleRoot(leaves[:n])), "size %d", n)
	}
	// Published audit paths (RFC 6962 test data): leaf 0 and leaf 5 of 8.
	for _, tc := range []struct {
		index int
		path  []string
	}{
		{0, []string{"96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7", "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e", "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"}},
		{5, []string{"bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b", "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0", "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"}},
	} {
		path, err := types.MerklePath(leaves, tc.index)
		require.NoError(t, err)
		var got []string
		for _, p := range path {
			got = append(got, hex.EncodeToString(p))
		}
		require.Equal(t, tc.path, got)
	}
}

// TestMerklePathsVerify: in trees of every size up to 40, every leaf's
// path verifies, and a wrong leaf, index, size, root or path does not.
func TestMerklePathsVerify(t *testing.T) {
	for n := 1; n <= 40; n++ {
		leaves := make([][]byte, n)
		for i := range leaves {
			leaves[i] = types.LeafHash([]byte{byte(i), byte(n)})
		}
		root := types.MerkleRoot(leaves)
		for i := range leaves {
			path, err := types.MerklePath(leaves, i)
			require.NoError(t, err)
			size, idx := uint64(n), uint64(i)
			require.NoError(t, types.VerifyMerklePath(root, leaves[i], idx, size, path), "n=%d i=%d", n, i)
			require.ErrorIs(t, types.VerifyMerklePath(root, types.LeafHash([]byte("forged")), idx, size, path), types.ErrInvalidMerkleProof)
			if n > 1 {
				require.Error(t, types.VerifyMerklePath(root, leaves[i], (idx+1)%size, size, path), "n=%d i=%d: another index", n, i)
				// (Another size is not always caught: a leaf's path can be the
				// same in trees of two sizes. The chain takes the size from
				// the stored summary, never from the reporter.)
				bad := append([][]byte{}, path...)
				bad[0] = types.LeafHash([]byte("x"))
				require.Error(t, types.VerifyMerklePath(root, leaves[i], idx, size, bad))
				require.Error(t, types.VerifyMerklePath(root, leaves[i], idx, size, path[:len(path)-1]), "a short path")
			}
			require.Error(t, types.VerifyMerklePath(root, leaves[i], idx, size, append(path, root)), "a long path")
			require.Error(t, types.VerifyMerklePath(root, leaves[i], size, size, path), "index = size")
		}
	}
	_, err := types.MerklePath(nil, 0)
	require.ErrorIs(t, err, types.ErrInvalidMerkleProof)
}

func leavesOf(n int) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		out[i] = types.LeafHash([]byte{byte(i), byte(i >> 8), byte(i >> 16)})
	}
	return out
}

// TestMerklePathsIsEveryMerklePath pins the one-pass construction against
// the single-path function, leaf by leaf, for every size up to 129 and
// around larger powers of two (the single-path side is quadratic); a day's
// lease of samples is checked against the verifier.
func TestMerklePathsIsEveryMerklePath(t *testing.T) {
	sizes := []int{}
	for n := 0; n <= 129; n++ {
		sizes = append(sizes, n)
	}
	sizes = append(sizes, 255, 256, 257, 511, 512, 513, 1000)
	for _, n := range sizes {
		leaves := leavesOf(n)
		root, paths := types.MerklePaths(leaves)
		require.Equal(t, types.MerkleRoot(leaves), root, "size %d", n)
		require.Len(t, paths, n)
		for i := range leaves {
			want, err := types.MerklePath(leaves, i)
			require.NoError(t, err)
			require.Equal(t, want, paths[i], "size %d leaf %d", n, i)
		}
	}
	leaves := leavesOf(5760)
	root, paths := types.MerklePaths(leaves)
	require.Equal(t, types.MerkleRoot(leaves), root)
	for i, p := range paths {
		require.NoError(t, types.VerifyMerklePath(root, leaves[i], uint64(i), 5760, p), "leaf %d", i)
	}
}

// One signed samples request of a full day's lease (5,760 samples of one
// GPU at 15 s): every path in one pass, against one MerklePath per leaf.
func BenchmarkMerklePaths(b *testing.B) {
	leaves := leavesOf(5760)
	b.Run("one-pass", func(b *testing.B) {
		for b.Loop() {
			types.MerklePaths(leaves)
		}
	})
	b.Run("per-leaf", func(b *testing.B) {
		for b.Loop() {
			for i := range leaves {
				_, _ = types.MerklePath(leaves, i)
			}
		}
	})
}
