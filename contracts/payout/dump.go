package payout

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"regexp"

	"github.com/ethereum/go-ethereum/common"
)

// DumpFormat and LeafEncoding are what OpenZeppelin's StandardMerkleTree
// writes in a dump of a tree with (address, uint256) leaves.
const DumpFormat = "standard-v1"

// LeafEncoding is the ABI types of a leaf, as a dump names them.
var LeafEncoding = []string{"address", "uint256"}

// ErrBadDump reports a dump that is malformed or does not hold together.
var ErrBadDump = errors.New("payout: bad tree dump")

// Dump is a tree in the JSON form of OpenZeppelin StandardMerkleTree's
// dump(): either side can load what the other wrote.
type Dump struct {
	Format       string        `json:"format"`
	LeafEncoding []string      `json:"leafEncoding"`
	Tree         []common.Hash `json:"tree"`
	Values       []DumpValue   `json:"values"`
}

// DumpValue is one leaf's value, [address, decimal amount], and its node.
type DumpValue struct {
	Value     [2]string `json:"value"`
	TreeIndex int       `json:"treeIndex"`
}

// Dump returns the tree in StandardMerkleTree's dump form: addresses
// checksummed, amounts in decimal, values in the order the tree was built from.
func (t *Tree) Dump() Dump {
	d := Dump{
		Format:       DumpFormat,
		LeafEncoding: append([]string(nil), LeafEncoding...),
		Tree:         append([]common.Hash(nil), t.nodes...),
		Values:       make([]DumpValue, len(t.entries)),
	}
	for i, e := range t.entries {
		d.Values[i] = DumpValue{Value: [2]string{e.Account.Hex(), e.Cumulative.String()}, TreeIndex: t.treeIndex[i]}
	}
	return d
}

// MarshalJSON encodes the tree as its dump.
func (t *Tree) MarshalJSON() ([]byte, error) { return json.Marshal(t.Dump()) }

var (
	addressRE = regexp.MustCompile(`^0x[0-9a-fA-F]{40}$`)
	decimalRE = regexp.MustCompile(`^(0|[1-9][0-9]{0,77})$`)
	hexAmtRE  = regexp.MustCompile(`^0x[0-9a-fA-F]{1,64}$`)
)

// LoadTree reads a dump (Go's or OpenZeppelin's) and checks all of it: the
// format and leaf encoding, every inner node the hash of its children, every
// value's leaf at its index, one value per leaf, each account once. It then
// rebuilds the tree from the values, so what it returns is exactly what
// NewTree gives for them.
func LoadTree(data []byte) (*Tree, error) {
	var d Dump
	if err := json.Unmarshal(data, &d); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadDump, err)
	}
	return d.Load()
}

// Load checks the dump as LoadTree does and returns its tree.
func (d Dump) Load() (*Tree, error) {
	if d.Format != DumpFormat {
		return nil, fmt.Errorf("%w: format %q, want %q", ErrBadDump, d.Format, DumpFormat)
	}
	if len(d.LeafEncoding) != 2 || d.LeafEncoding[0] != LeafEncoding[0] || d.LeafEncoding[1] != LeafEncoding[1] {
		return nil, fmt.Errorf("%w: leaf encoding %q, want %q", ErrBadDump, d.LeafEncoding, LeafEncoding)
	}
	n := len(d.Tree)
	if n == 0 || n%2 == 0 {
		return nil, fmt.Errorf("%w: %d nodes is not a complete tree", ErrBadDump, n)
	}
	for i := 0; 2*i+2 < n; i++ {
		if d.Tree[i] != hashPair(d.Tree[2*i+1], d.Tree[2*i+2]) {
			return nil, fmt.Errorf("%w: node %d is not the hash of its children", ErrBadDump, i)
		}
	}
	if leaves := (n + 1) / 2; len(d.Values) != leaves {
		return nil, fmt.Errorf("%w: %d values for %d leaves", ErrBadDump, len(d.Values), leaves)
	}
	entries := make([]Entry, len(d.Values))
	for i, v := range d.Values {
		if !addressRE.MatchString(v.Value[0]) {
			return nil, fmt.Errorf("%w: value %d: address %q", ErrBadDump, i, v.Value[0])
		}
		amount, err := parseAmount(v.Value[1])
		if err != nil {
			return nil, fmt.Errorf("%w: value %d: %v", ErrBadDump, i, err)
		}
		entries[i] = Entry{Account: common.HexToAddress(v.Value[0]), Cumulative: amount}
		if v.TreeIndex < n/2 || v.TreeIndex >= n {
			return nil, fmt.Errorf("%w: value %d: tree index %d is not a leaf", ErrBadDump, i, v.TreeIndex)
		}
		if d.Tree[v.TreeIndex] != Leaf(entries[i].Account, amount) {
			return nil, fmt.Errorf("%w: value %d: leaf %d does not hash it", ErrBadDump, i, v.TreeIndex)
		}
	}
	t, err := NewTree(entries)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadDump, err)
	}
	// Distinct, correctly hashed values at leaf indexes, with every inner
	// node checked, make the same tree only if the leaves were sorted as
	// NewTree sorts them; a dump laid out otherwise is refused rather than
	// silently re-rooted.
	if t.Root() != d.Tree[0] {
		return nil, fmt.Errorf("%w: leaves are not in StandardMerkleTree's sorted order", ErrBadDump)
	}
	for i, v := range d.Values {
		if t.treeIndex[i] != v.TreeIndex {
			return nil, fmt.Errorf("%w: value %d: tree index %d, want %d", ErrBadDump, i, v.TreeIndex, t.treeIndex[i])
		}
	}
	return t, nil
}

func parseAmount(s string) (*big.Int, error) {
	var (
		x  *big.Int
		ok bool
	)
	switch {
	case decimalRE.MatchString(s):
		x, ok = new(big.Int).SetString(s, 10)
	case hexAmtRE.MatchString(s):
		x, ok = new(big.Int).SetString(s[2:], 16)
	}
	if !ok || x.Cmp(maxUint256) > 0 {
		return nil, fmt.Errorf("amount %q is not a uint256 in decimal or 0x-hex", s)
	}
	return x, nil
}
