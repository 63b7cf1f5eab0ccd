package payout

import (
	"errors"
	"fmt"
	"math/big"
	"sort"

	"github.com/ethereum/go-ethereum/common"
)

// Errors of building or loading a tree.
var (
	ErrEmptyTree        = errors.New("payout: a tree needs at least one entry")
	ErrDuplicateAccount = errors.New("payout: an account appears twice")
	ErrBadAmount        = errors.New("payout: cumulative amount is not a uint256")
	ErrUnknownAccount   = errors.New("payout: account is not in the tree")
)

// Tree is a payout tree in OpenZeppelin StandardMerkleTree's layout: the
// leaf hashes sorted ascending and stored from the end of a flat array of
// 2n-1 nodes, node i's children at 2i+1 and 2i+2, node 0 the root. The same
// entries give the same root, proofs and dump as
// StandardMerkleTree.of(values, ["address", "uint256"]).
type Tree struct {
	nodes     []common.Hash
	entries   []Entry // in the order given
	treeIndex []int   // entries[i]'s leaf is nodes[treeIndex[i]]
	byAccount map[common.Address]int
}

// NewTree builds the tree of entries; an account may appear only once, and
// each amount must fit a uint256. The entries are copied.
func NewTree(entries []Entry) (*Tree, error) {
	if len(entries) == 0 {
		return nil, ErrEmptyTree
	}
	t := &Tree{
		entries:   make([]Entry, len(entries)),
		treeIndex: make([]int, len(entries)),
		byAccount: make(map[common.Address]int, len(entries)),
	}
	type hashed struct {
		hash  common.Hash
		entry int
	}
	leaves := make([]hashed, len(entries))
	for i, e := range entries {
		if e.Cumulative == nil || e.Cumulative.Sign() < 0 || e.Cumulative.Cmp(maxUint256) > 0 {
			return nil, fmt.Errorf("%w: %s for %s", ErrBadAmount, e.Cumulative, e.Account)
		}
		if _, dup := t.byAccount[e.Account]; dup {
			return nil, fmt.Errorf("%w: %s", ErrDuplicateAccount, e.Account)
		}
		t.byAccount[e.Account] = i
		t.entries[i] = Entry{Account: e.Account, Cumulative: new(big.Int).Set(e.Cumulative)}
		leaves[i] = hashed{Leaf(e.Account, e.Cumulative), i}
	}
	// Distinct accounts give distinct leaves, so the order is total.
	sort.Slice(leaves, func(a, b int) bool { return compareHash(leaves[a].hash, leaves[b].hash) < 0 })

	n := len(leaves)
	t.nodes = make([]common.Hash, 2*n-1)
	for i, l := range leaves {
		at := len(t.nodes) - 1 - i
		t.nodes[at] = l.hash
		t.treeIndex[l.entry] = at
	}
	for i := len(t.nodes) - 1 - n; i >= 0; i-- {
		t.nodes[i] = hashPair(t.nodes[2*i+1], t.nodes[2*i+2])
	}
	return t, nil
}

// Root is the root the validators sign and the vault pays against.
func (t *Tree) Root() common.Hash { return t.nodes[0] }

// Len is the number of entries.
func (t *Tree) Len() int { return len(t.entries) }

// Entries returns a copy of the entries, in the order the tree was built from.
func (t *Tree) Entries() []Entry {
	out := make([]Entry, len(t.entries))
	for i, e := range t.entries {
		out[i] = Entry{Account: e.Account, Cumulative: new(big.Int).Set(e.Cumulative)}
	}
	return out
}

// Total is the sum of every cumulative amount: the smallest totalCumulative
// that lets every leaf be claimed in full.
func (t *Tree) Total() *big.Int {
	sum := new(big.Int)
	for _, e := range t.entries {
		sum.Add(sum, e.Cumulative)
	}
	return sum
}

// Cumulative returns the amount account's leaf holds.
func (t *Tree) Cumulative(account common.Address) (*big.Int, error) {
	i, ok := t.byAccount[account]
	if !ok {
		return nil, fmt.Errorf("%w: %s", ErrUnknownAccount, account)
	}
	return new(big.Int).Set(t.entries[i].Cumulative), nil
}

// Proof returns account's cumulative amount and the proof to claim it with:
// the sibling of each node on the path from its leaf to the root.
func (t *Tree) Proof(account common.Address) (*big.Int, []common.Hash, error) {
	i, ok := t.byAccount[account]
	if !ok {
		return nil, nil, fmt.Errorf("%w: %s", ErrUnknownAccount, account)
	}
	var proof []common.Hash
	for at := t.treeIndex[i]; at > 0; at = (at - 1) / 2 {
		sibling := at + 1
		if at%2 == 0 {
			sibling = at - 1
		}
		proof = append(proof, t.nodes[sibling])
	}
	return new(big.Int).Set(t.entries[i].Cumulative), proof, nil
}
