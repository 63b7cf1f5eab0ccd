package payout_test

import (
	"encoding/json"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/contracts/payout"
)

func TestNewTreeRefuses(t *testing.T) {
	a := testAccount(1)
	_, err := payout.NewTree(nil)
	require.ErrorIs(t, err, payout.ErrEmptyTree)
	_, err = payout.NewTree([]payout.Entry{{a, big.NewInt(1)}, {a, big.NewInt(2)}})
	require.ErrorIs(t, err, payout.ErrDuplicateAccount)
	_, err = payout.NewTree([]payout.Entry{{a, big.NewInt(-1)}})
	require.ErrorIs(t, err, payout.ErrBadAmount)
	_, err = payout.NewTree([]payout.Entry{{a, new(big.Int).Lsh(big.NewInt(1), 256)}})
	require.ErrorIs(t, err, payout.ErrBadAmount)
	_, err = payout.NewTree([]payout.Entry{{a, nil}})
	require.ErrorIs(t, err, payout.ErrBadAmount)
}

// TestTreeProofs checks every proof of trees of 1 to 40 leaves verifies,
// and fails for another amount, another account or a truncated proof.
func TestTreeProofs(t *testing.T) {
	for n := 1; n <= 40; n++ {
		var entries []payout.Entry
		for i := range n {
			entries = append(entries, payout.Entry{Account: testAccount(1000 + i), Cumulative: big.NewInt(int64(i*7 + 1))})
		}
		tree, err := payout.NewTree(entries)
		require.NoError(t, err)
		require.Equal(t, n, tree.Len())
		for i, e := range entries {
			cum, proof, err := tree.Proof(e.Account)
			require.NoError(t, err)
			require.Equal(t, e.Cumulative, cum)
			require.True(t, payout.Verify(tree.Root(), proof, e.Account, cum), "n=%d i=%d", n, i)
			require.False(t, payout.Verify(tree.Root(), proof, e.Account, new(big.Int).Add(cum, big.NewInt(1))))
			require.False(t, payout.Verify(tree.Root(), proof, testAccount(99999), cum))
			if len(proof) > 0 {
				require.False(t, payout.Verify(tree.Root(), proof[:len(proof)-1], e.Account, cum))
			}
		}
		_, _, err = tree.Proof(testAccount(99999))
		require.ErrorIs(t, err, payout.ErrUnknownAccount)

		// The dump round-trips.
		raw, err := json.Marshal(tree)
		require.NoError(t, err)
		loaded, err := payout.LoadTree(raw)
		require.NoError(t, err)
		require.Equal(t, tree.Root(), loaded.Root())
		require.Equal(t, tree.Dump(), loaded.Dump())
	}
}

// TestLoadTreeRefuses checks that a dump that does not hold together is
// refused: a changed amount, a changed node, a moved value, a missing value.
func TestLoadTreeRefuses(t *testing.T) {
	tree, err := payout.NewTree([]payout.Entry{
		{testAccount(1), big.NewInt(10)}, {testAccount(2), big.NewInt(20)}, {testAccount(3), big.NewInt(30)},
	})
	require.NoError(t, err)
	mutate := map[string]func(d *payout.Dump){
		"format":        func(d *payout.Dump) { d.Format = "simple-v1" },
		"leaf encoding": func(d *payout.Dump) { d.LeafEncoding = []string{"address", "uint128"} },
		"amount":        func(d *payout.Dump) { d.Values[0].Value[1] = "11" },
		"node":          func(d *payout.Dump) { d.Tree[1][0] ^= 1 },
		"root":          func(d *payout.Dump) { d.Tree[0][0] ^= 1 },
		"tree index": func(d *payout.Dump) {
			d.Values[0].TreeIndex, d.Values[1].TreeIndex = d.Values[1].TreeIndex, d.Values[0].TreeIndex
		},
		"inner index":   func(d *payout.Dump) { d.Values[0].TreeIndex = 0 },
		"missing value": func(d *payout.Dump) { d.Values = d.Values[:2] },
		"bad address":   func(d *payout.Dump) { d.Values[0].Value[0] = "0x1234" },
		"bad amount":    func(d *payout.Dump) { d.Values[0].Value[1] = "-1" },
		"even nodes":    func(d *payout.Dump) { d.Tree = d.Tree[:4] },
		"empty":         func(d *payout.Dump) { d.Tree, d.Values = nil, nil },
		"swapped leaves": func(d *payout.Dump) {
			// Both leaves of one parent exchanged: every inner node still
			// hashes its (commutative) children, but not in sorted order.
			l, r := len(d.Tree)-2, len(d.Tree)-1
			d.Tree[l], d.Tree[r] = d.Tree[r], d.Tree[l]
			for i := range d.Values {
				switch d.Values[i].TreeIndex {
				case l:
					d.Values[i].TreeIndex = r
				case r:
					d.Values[i].TreeIndex = l
				}
			}
		},
	}
	for name, m := range mutate {
		t.Run(name, func(t *testing.T) {
			d := tree.Dump()
			d.Tree = append([]common.Hash(nil), d.Tree...)
			d.Values = append([]payout.DumpValue(nil), d.Values...)
			m(&d)
			raw, err := json.Marshal(d)
			require.NoError(t, err)
			_, err = payout.LoadTree(raw)
			require.ErrorIs(t, err, payout.ErrBadDump)
		})
	}
	_, err = payout.LoadTree([]byte("{"))
	require.ErrorIs(t, err, payout.ErrBadDump)
}
