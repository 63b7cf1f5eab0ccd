package types

import (
	"crypto/sha256"
	"math/bits"

	errorsmod "cosmossdk.io/errors"
)

// The samples tree is RFC 6962's Merkle Tree Hash (Certificate
// Transparency, RFC 9162 §2.1) over SHA-256: leaves and inner nodes are
// domain-separated by a prefix byte, so no inner node can pass for a leaf,
// and an n-leaf tree splits at the largest power of two below n. Inclusion
// proofs are RFC 9162 §2.1.3 audit paths; any CT library verifies them.
const (
	leafPrefix = 0x00
	nodePrefix = 0x01
)

// HashSize is the size of a tree hash.
const HashSize = sha256.Size

// MaxMerklePath bounds an audit path: a tree of up to 2^32 samples.
const MaxMerklePath = 32

// LeafHash is sha256(0x00 ‖ data).
func LeafHash(data []byte) []byte { return leafHash(data) }

func leafHash(data []byte) []byte {
	h := sha256.New()
	h.Write([]byte{leafPrefix})
	h.Write(data)
	return h.Sum(nil)
}

func nodeHash(left, right []byte) []byte {
	h := sha256.New()
	h.Write([]byte{nodePrefix})
	h.Write(left)
	h.Write(right)
	return h.Sum(nil)
}

// splitPoint is the largest power of two below n (n ≥ 2).
func splitPoint(n int) int {
	return 1 << (bits.Len(uint(n-1)) - 1)
}

// MerkleRoot is the tree hash over leaf hashes, in order. An empty tree
// hashes to sha256("").
func MerkleRoot(leaves [][]byte) []byte {
	switch len(leaves) {
	case 0:
		h := sha256.Sum256(nil)
		return h[:]
	case 1:
		return leaves[0]
	}
	k := splitPoint(len(leaves))
	return nodeHash(MerkleRoot(leaves[:k]), MerkleRoot(leaves[k:]))
}

// MerklePath is the audit path of leaf index in the tree over leaves: the
// sibling hashes from the leaf up.
func MerklePath(leaves [][]byte, index int) ([][]byte, error) {
	if index < 0 || index >= len(leaves) {
		return nil, errorsmod.Wrapf(ErrInvalidMerkleProof, "index %d outside a tree of %d", index, len(leaves))
	}
	return path(leaves, index), nil
}

func path(leaves [][]byte, m int) [][]byte {
	if len(leaves) <= 1 {
		return nil
	}
	k := splitPoint(len(leaves))
	if m < k {
		return append(path(leaves[:k], m), MerkleRoot(leaves[k:]))
	}
	return append(path(leaves[k:], m-k), MerkleRoot(leaves[:k]))
}

// MerklePaths returns the root and every leaf's audit path (paths[i] is
// MerklePath(leaves, i)) in one pass over the tree: O(n log n) hashes, where
// a MerklePath per leaf costs O(n²) for an epoch's samples.
func MerklePaths(leaves [][]byte) (root []byte, paths [][][]byte) {
	paths = make([][][]byte, len(leaves))
	if len(leaves) > 1 {
		depth := bits.Len(uint(len(leaves) - 1))
		for i := range paths {
			paths[i] = make([][]byte, 0, depth)
		}
	}
	return subtreePaths(leaves, paths), paths
}

// subtreePaths returns the root of the subtree over leaves and appends to
// each of its leaves' paths the siblings inside it, bottom up.
func subtreePaths(leaves [][]byte, paths [][][]byte) []byte {
	if len(leaves) <= 1 {
		return MerkleRoot(leaves)
	}
	k := splitPoint(len(leaves))
	left, right := subtreePaths(leaves[:k], paths[:k]), subtreePaths(leaves[k:], paths[k:])
	for i := range paths[:k] {
		paths[i] = append(paths[i], right)
	}
	for i := k; i < len(paths); i++ {
		paths[i] = append(paths[i], left)
	}
	return nodeHash(left, right)
}

// VerifyMerklePath checks that leaf sits at index in a tree of size leaves
// with the given root (RFC 9162 §2.1.3.2).
func VerifyMerklePath(root, leaf []byte, index, size uint64, auditPath [][]byte) error {
	if index >= size {
		return errorsmod.Wrapf(ErrInvalidMerkleProof, "index %d outside a tree of %d", index, size)
	}
	if err := ValidateMerklePath(auditPath); err != nil {
		return err
	}
	if len(root) != HashSize || len(leaf) != HashSize {
		return errorsmod.Wrap(ErrInvalidMerkleProof, "malformed hashes or path too long")
	}
	fn, sn := index, size-1
	r := leaf
	for _, p := range auditPath {
		if sn == 0 {
			return errorsmod.Wrap(ErrInvalidMerkleProof, "path longer than the tree")
		}
		if fn&1 == 1 || fn == sn {
			r = nodeHash(p, r)
			if fn&1 == 0 {
				for fn&1 == 0 && fn != 0 {
					fn >>= 1
					sn >>= 1
				}
			}
		} else {
			r = nodeHash(r, p)
		}
		fn >>= 1
		sn >>= 1
	}
	if sn != 0 {
		return errorsmod.Wrap(ErrInvalidMerkleProof, "path shorter than the tree")
	}
	if string(r) != string(root) {
		return errorsmod.Wrap(ErrInvalidMerkleProof, "path does not lead to the root")
	}
	return nil
}

// ValidateMerklePath checks an audit path's shape on its own, before any
// tree is known: at most MaxMerklePath hashes of HashSize bytes.
func ValidateMerklePath(auditPath [][]byte) error {
	if len(auditPath) > MaxMerklePath {
		return errorsmod.Wrap(ErrInvalidMerkleProof, "malformed hashes or path too long")
	}
	for _, p := range auditPath {
		if len(p) != HashSize {
			return errorsmod.Wrap(ErrInvalidMerkleProof, "path hash of the wrong size")
		}
	}
	return nil
}
