package payout_test

import (
	"encoding/json"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/contracts/payout"
)

// FuzzLoadTree feeds arbitrary bytes to the dump decoder: it never panics,
// and whatever it accepts is a tree whose every value verifies against its
// root and which dumps back to what was loaded.
func FuzzLoadTree(f *testing.F) {
	for _, n := range []int{1, 2, 3, 5} {
		var entries []payout.Entry
		for i := range n {
			entries = append(entries, payout.Entry{Account: testAccount(i), Cumulative: big.NewInt(int64(1 + i))})
		}
		tree, err := payout.NewTree(entries)
		require.NoError(f, err)
		raw, err := json.Marshal(tree)
		require.NoError(f, err)
		f.Add(raw)
	}
	f.Add([]byte(`{"format":"standard-v1","leafEncoding":["address","uint256"],"tree":[],"values":[]}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, data []byte) {
		tree, err := payout.LoadTree(data)
		if err != nil {
			require.ErrorIs(t, err, payout.ErrBadDump)
			return
		}
		for _, e := range tree.Entries() {
			cum, proof, err := tree.Proof(e.Account)
			require.NoError(t, err)
			require.True(t, payout.Verify(tree.Root(), proof, e.Account, cum))
		}
		again, err := json.Marshal(tree)
		require.NoError(t, err)
		reloaded, err := payout.LoadTree(again)
		require.NoError(t, err)
		require.Equal(t, tree.Root(), reloaded.Root())
	})
}

// FuzzVerify checks proof verification against a fixed tree with arbitrary
// accounts, amounts and proofs: only a true leaf with its own proof
// verifies, and nothing panics.
func FuzzVerify(f *testing.F) {
	var entries []payout.Entry
	for i := range 9 {
		entries = append(entries, payout.Entry{Account: testAccount(i), Cumulative: big.NewInt(int64(100 * (i + 1)))})
	}
	tree, err := payout.NewTree(entries)
	require.NoError(f, err)
	for i := range entries {
		_, proof, err := tree.Proof(entries[i].Account)
		require.NoError(f, err)
		var flat []byte
		for _, p := range proof {
			flat = append(flat, p[:]...)
		}
		f.Add(entries[i].Account.Bytes(), entries[i].Cumulative.Bytes(), flat)
	}
	f.Add([]byte{}, []byte{}, []byte{})
	f.Fuzz(func(t *testing.T, account, amount, flat []byte) {
		acct := common.BytesToAddress(account)
		cum := new(big.Int).SetBytes(amount)
		var proof []common.Hash
		for len(flat) >= 32 {
			proof = append(proof, common.BytesToHash(flat[:32]))
			flat = flat[32:]
		}
		ok := payout.Verify(tree.Root(), proof, acct, cum)
		want, err := tree.Cumulative(acct)
		if err != nil || want.Cmp(cum) != 0 {
			require.False(t, ok, "a value that is not a leaf verified")
			return
		}
		_, own, err := tree.Proof(acct)
		require.NoError(t, err)
		if len(proof) == len(own) && equalHashes(proof, own) {
			require.True(t, ok)
		}
	})
}

func equalHashes(a, b []common.Hash) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return len(a) == len(b)
}
