// Package payout is the Go side of the settlement vault's cryptography: the
// payout Merkle tree and its proofs (the layout of OpenZeppelin's
// StandardMerkleTree with ["address", "uint256"] leaves, so a tree dumped by
// either side loads in the other), the validator set and its checkpoint, the
// root digest, and validators' signatures over both. The appchain builds and
// signs with it, a relayer submits what it produced, and the contract checks
// exactly these bytes (contracts/src/SettlementVault.sol).
package payout

import (
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

// maxUint256 bounds a cumulative amount: it is an ABI uint256.
var maxUint256 = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))

// Entry is one leaf of a payout tree: everything paid to Account since the
// vault began, in the token's smallest unit.
type Entry struct {
	Account    common.Address
	Cumulative *big.Int
}

// Leaf is the leaf hash the vault checks a claim against:
// keccak256(bytes.concat(keccak256(abi.encode(account, cumulative)))).
// Hashing twice keeps a leaf from ever equalling an inner node (a 64-byte
// preimage), the second-preimage guard of OpenZeppelin's StandardMerkleTree.
func Leaf(account common.Address, cumulative *big.Int) common.Hash {
	var enc [64]byte
	copy(enc[12:32], account.Bytes())
	cumulative.FillBytes(enc[32:64])
	inner := crypto.Keccak256(enc[:])
	return crypto.Keccak256Hash(inner)
}

// hashPair is OpenZeppelin's commutative node hash: the smaller child first.
func hashPair(a, b common.Hash) common.Hash {
	if compareHash(a, b) > 0 {
		a, b = b, a
	}
	return crypto.Keccak256Hash(a[:], b[:])
}

func compareHash(a, b common.Hash) int {
	for i := range a {
		if a[i] != b[i] {
			if a[i] < b[i] {
				return -1
			}
			return 1
		}
	}
	return 0
}

// Verify reports whether proof shows that (account, cumulative) is a leaf
// of root, exactly as OpenZeppelin's MerkleProof.verify does on chain.
func Verify(root common.Hash, proof []common.Hash, account common.Address, cumulative *big.Int) bool {
	if cumulative == nil || cumulative.Sign() < 0 || cumulative.Cmp(maxUint256) > 0 {
		return false
	}
	h := Leaf(account, cumulative)
	for _, p := range proof {
		h = hashPair(h, p)
	}
	return h == root
}
