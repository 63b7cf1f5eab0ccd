package payout_test

import (
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/contracts/payout"
)

// TestNewValset normalises powers to shares of 2^32 rounded down, sorts
// by address, drops a member whose share rounds to zero and refuses
// duplicates and an all-zero set.
func TestNewValset(t *testing.T) {
	a, b, c := testAccount(1), testAccount(2), testAccount(3)
	vs, err := payout.NewValset(7, []payout.Member{{a, 1}, {b, 1}, {c, 1}})
	require.NoError(t, err)
	require.Equal(t, uint64(7), vs.Nonce)
	require.Len(t, vs.Validators, 3)
	for i := 1; i < 3; i++ {
		require.Negative(t, vs.Validators[i-1].Cmp(vs.Validators[i]))
	}
	third := payout.PowerTotal / 3
	require.Equal(t, []uint64{third, third, third}, vs.Powers)
	require.Equal(t, 3*third, vs.TotalPower())
	require.Equal(t, 1, vs.IndexOf(vs.Validators[1]))
	require.Equal(t, -1, vs.IndexOf(testAccount(4)))

	// A whale and a validator with less than 2^-32 of the power.
	vs, err = payout.NewValset(1, []payout.Member{{a, 1 << 40}, {b, 1}})
	require.NoError(t, err)
	require.Equal(t, []common.Address{a}, vs.Validators)
	require.Equal(t, []uint64{payout.PowerTotal - 1}, vs.Powers, "(2^40 * 2^32) / (2^40 + 1), rounded down")

	// Huge powers do not overflow.
	vs, err = payout.NewValset(1, []payout.Member{{a, ^uint64(0)}, {b, ^uint64(0)}})
	require.NoError(t, err)
	require.Equal(t, []uint64{payout.PowerTotal / 2, payout.PowerTotal / 2}, vs.Powers)

	_, err = payout.NewValset(1, []payout.Member{{a, 1}, {a, 2}})
	require.ErrorIs(t, err, payout.ErrValidatorsNotSorted)
	_, err = payout.NewValset(1, []payout.Member{{a, 0}})
	require.ErrorIs(t, err, payout.ErrEmptyValset)
	_, err = payout.NewValset(1, nil)
	require.ErrorIs(t, err, payout.ErrEmptyValset)
}

func TestValsetValidate(t *testing.T) {
	a, b := testAccount(1), testAccount(2)
	if a.Cmp(b) > 0 {
		a, b = b, a
	}
	half := payout.PowerTotal / 2
	for _, tc := range []struct {
		name string
		vs   payout.Valset
		err  error
	}{
		{"ok", payout.Valset{Validators: []common.Address{a, b}, Powers: []uint64{half, half}}, nil},
		{"empty", payout.Valset{}, payout.ErrEmptyValset},
		{"lengths", payout.Valset{Validators: []common.Address{a, b}, Powers: []uint64{half}}, payout.ErrValsetLengthMismatch},
		{"unsorted", payout.Valset{Validators: []common.Address{b, a}, Powers: []uint64{half, half}}, payout.ErrValidatorsNotSorted},
		{"zero address", payout.Valset{Validators: []common.Address{{}, a}, Powers: []uint64{half, half}}, payout.ErrZeroValidator},
		{"zero power", payout.Valset{Validators: []common.Address{a, b}, Powers: []uint64{payout.PowerTotal, 0}}, payout.ErrZeroPower},
		{"above total", payout.Valset{Validators: []common.Address{a, b}, Powers: []uint64{half, half + 1}}, payout.ErrPowerAboveTotal},
		{"overflow", payout.Valset{Validators: []common.Address{a, b}, Powers: []uint64{^uint64(0), 2}}, payout.ErrPowerAboveTotal},
		{"threshold", payout.Valset{Validators: []common.Address{a}, Powers: []uint64{payout.PowerThreshold}}, payout.ErrPowerBelowThreshold},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.vs.Validate()
			if tc.err == nil {
				require.NoError(t, err)
			} else {
				require.ErrorIs(t, err, tc.err)
			}
		})
	}
}

// TestSignAndVerify: Sign orders signatures by index and refuses outsiders
// and repeated keys; Verify counts power and applies the threshold.
func TestSignAndVerify(t *testing.T) {
	var members []payout.Member
	keys := map[common.Address]int{}
	for i := range 4 {
		k := testKey(t, i)
		keys[crypto.PubkeyToAddress(k.PublicKey)] = i
		members = append(members, payout.Member{Address: crypto.PubkeyToAddress(k.PublicKey), Power: 5})
	}
	vs, err := payout.NewValset(1, members)
	require.NoError(t, err)
	domain := payout.Domain{VaultID: common.Hash{1}, ChainID: big.NewInt(8453), Vault: testAccount(9)}
	digest := domain.ValsetCheckpoint(vs)

	sigs, err := vs.Sign(digest, testKey(t, 3), testKey(t, 0), testKey(t, 2))
	require.NoError(t, err)
	require.Len(t, sigs, 3)
	for i := 1; i < len(sigs); i++ {
		require.Less(t, sigs[i-1].Index, sigs[i].Index)
	}
	power, err := vs.Verify(digest, sigs)
	require.NoError(t, err)
	require.Equal(t, 3*(payout.PowerTotal/4), power)

	power, err = vs.Verify(digest, sigs[:2])
	require.ErrorIs(t, err, payout.ErrInsufficientPower)
	require.Equal(t, 2*(payout.PowerTotal/4), power)

	_, err = vs.Sign(digest, testKey(t, 9))
	require.ErrorIs(t, err, payout.ErrNotAValidator)
	_, err = vs.Sign(digest, testKey(t, 1), testKey(t, 1))
	require.ErrorIs(t, err, payout.ErrSignersNotIncreasing)

	// Every signature is low-s, v 27 or 28.
	halfN := new(big.Int).Rsh(crypto.S256().Params().N, 1)
	for _, s := range sigs {
		require.Contains(t, []uint8{27, 28}, s.V)
		require.LessOrEqual(t, new(big.Int).SetBytes(s.S[:]).Cmp(halfN), 0)
	}

	_, err = domain.RootDigest(1, 1, common.Hash{}, big.NewInt(-1))
	require.ErrorIs(t, err, payout.ErrBadAmount)
	_, err = domain.RootDigest(1, 1, common.Hash{}, nil)
	require.ErrorIs(t, err, payout.ErrBadAmount)
}
