package bindings_test

import (
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/contracts/bindings"
	"github.com/idlegpu/idlegpu/contracts/payout"
)

// ECDSA.RecoverError as the vault reports it in InvalidSignature.
const (
	recoverInvalidSignature  = 1
	recoverInvalidSignatureS = 3
)

// TestSignatureRefusals proposes one root with signature sets the vault
// must refuse, each with its exact error; the Go checker (Valset.Verify),
// which a relayer runs before paying gas, refuses each too.
func TestSignatureRefusals(t *testing.T) {
	e := newEnv(t, 4)
	e.deposit(e.renters[0], usdc(100), e.renters[0].addr)
	tr := tree(t, entry(e.providers[0].addr, usdc(100)))
	digest := e.rootDigest(1, tr.Root(), usdc(100))
	good := e.sign(digest, 0, 1, 2)
	outsider, err := crypto.ToECDSA(crypto.Keccak256([]byte("not a validator")))
	require.NoError(t, err)
	outsiderAddr := crypto.PubkeyToAddress(outsider.PublicKey)
	n := crypto.S256().Params().N

	// withSig replaces signature i of good.
	withSig := func(i int, f func(s *bindings.SettlementVaultSignature)) []bindings.SettlementVaultSignature {
		sigs := append([]bindings.SettlementVaultSignature(nil), good...)
		f(&sigs[i])
		return sigs
	}
	signedBy := func(key []byte, d common.Hash) (v uint8, r, s [32]byte) {
		k, err := crypto.ToECDSA(key)
		require.NoError(t, err)
		v, r, s, err = payout.SignDigest(k, d)
		require.NoError(t, err)
		return v, r, s
	}
	otherChain := payout.Domain{VaultID: e.domain.VaultID, ChainID: big.NewInt(1), Vault: e.vaultAddr}
	otherVault := payout.Domain{VaultID: e.domain.VaultID, ChainID: simChainID, Vault: e.tokenAddr}
	otherVaultID := payout.Domain{VaultID: crypto.Keccak256Hash([]byte("other")), ChainID: simChainID, Vault: e.vaultAddr}
	otherDigest := func(d payout.Domain) common.Hash {
		h, err := d.RootDigest(e.valset.Nonce, 1, tr.Root(), usdc(100))
		require.NoError(t, err)
		return h
	}
	key1 := crypto.FromECDSA(e.valKeys[1])

	cases := []struct {
		name string
		sigs []bindings.SettlementVaultSignature
		// want is the vault's error; wrongSigner, when set, is checked by
		// position and expected address only (the recovered one is noise).
		want        any
		wrongSigner int
		goErr       error
	}{
		{name: "wrong signer", sigs: withSig(1, func(s *bindings.SettlementVaultSignature) {
			s.V, s.R, s.S = signedBy(crypto.FromECDSA(outsider), digest)
		}), want: &bindings.SettlementVaultWrongSigner{Position: big.NewInt(1), Expected: e.valset.Validators[1], Recovered: outsiderAddr},
			goErr: payout.ErrWrongSigner},
		{name: "duplicated signer", sigs: []bindings.SettlementVaultSignature{good[0], good[1], good[1], good[2]},
			want: &bindings.SettlementVaultSignersNotIncreasing{Position: big.NewInt(2)}, goErr: payout.ErrSignersNotIncreasing},
		{name: "one signer three times", sigs: []bindings.SettlementVaultSignature{good[0], good[0], good[0]},
			want: &bindings.SettlementVaultSignersNotIncreasing{Position: big.NewInt(1)}, goErr: payout.ErrSignersNotIncreasing},
		{name: "decreasing indexes", sigs: []bindings.SettlementVaultSignature{good[2], good[1], good[0]},
			want: &bindings.SettlementVaultSignersNotIncreasing{Position: big.NewInt(1)}, goErr: payout.ErrSignersNotIncreasing},
		{name: "index out of range", sigs: withSig(2, func(s *bindings.SettlementVaultSignature) { s.Index = 4 }),
			want: &bindings.SettlementVaultSignerIndexOutOfRange{Position: big.NewInt(2), Index: big.NewInt(4)}, goErr: payout.ErrSignerOutOfRange},
		{name: "high s", sigs: withSig(1, func(s *bindings.SettlementVaultSignature) {
			// (r, n-s, v^1) is the same signature's malleable twin.
			hs := new(big.Int).Sub(n, new(big.Int).SetBytes(s.S[:]))
			hs.FillBytes(s.S[:])
			s.V ^= 1
		}), want: &bindings.SettlementVaultInvalidSignature{Position: big.NewInt(1), Reason: recoverInvalidSignatureS},
			goErr: payout.ErrInvalidSignature},
		{name: "zero v", sigs: withSig(0, func(s *bindings.SettlementVaultSignature) { s.V = 0 }),
			want:  &bindings.SettlementVaultInvalidSignature{Position: big.NewInt(0), Reason: recoverInvalidSignature},
			goErr: payout.ErrInvalidSignature},
		{name: "v of 0/1 form", sigs: withSig(0, func(s *bindings.SettlementVaultSignature) { s.V -= 27 }),
			want:  &bindings.SettlementVaultInvalidSignature{Position: big.NewInt(0), Reason: recoverInvalidSignature},
			goErr: payout.ErrInvalidSignature},
		{name: "zero signature", sigs: withSig(2, func(s *bindings.SettlementVaultSignature) { s.R, s.S = [32]byte{}, [32]byte{} }),
			want:  &bindings.SettlementVaultInvalidSignature{Position: big.NewInt(2), Reason: recoverInvalidSignature},
			goErr: payout.ErrInvalidSignature},
		{name: "digest for another chain id", sigs: withSig(1, func(s *bindings.SettlementVaultSignature) {
			s.V, s.R, s.S = signedBy(key1, otherDigest(otherChain))
		}), wrongSigner: 1, goErr: payout.ErrWrongSigner},
		{name: "digest for another vault address", sigs: withSig(1, func(s *bindings.SettlementVaultSignature) {
			s.V, s.R, s.S = signedBy(key1, otherDigest(otherVault))
		}), wrongSigner: 1, goErr: payout.ErrWrongSigner},
		{name: "digest for another vault id", sigs: withSig(1, func(s *bindings.SettlementVaultSignature) {
			s.V, s.R, s.S = signedBy(key1, otherDigest(otherVaultID))
		}), wrongSigner: 1, goErr: payout.ErrWrongSigner},
		{name: "raw digest without the EIP-191 prefix", sigs: withSig(1, func(s *bindings.SettlementVaultSignature) {
			raw, err := crypto.Sign(digest[:], e.valKeys[1])
			require.NoError(t, err)
			copy(s.R[:], raw[:32])
			copy(s.S[:], raw[32:64])
			s.V = raw[64] + 27
		}), wrongSigner: 1, goErr: payout.ErrWrongSigner},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			data := e.vault.PackProposeRoot(toValset(e.valset), tc.sigs, 1, tr.Root(), usdc(100))
			if tc.want != nil {
				e.expectVaultError(e.relayer, data, tc.want)
			} else {
				got, err := e.vault.UnpackError(e.revertData(e.relayer, e.vaultC, data))
				require.NoError(t, err)
				ws, ok := got.(*bindings.SettlementVaultWrongSigner)
				require.True(t, ok, "got %#v", got)
				require.Equal(t, int64(tc.wrongSigner), ws.Position.Int64())
				require.Equal(t, e.valset.Validators[tc.wrongSigner], ws.Expected)
				require.NotEqual(t, ws.Expected, ws.Recovered)
			}
			_, err := e.valset.Verify(digest, fromSigs(tc.sigs))
			require.ErrorIs(t, err, tc.goErr)
		})
	}

	// The good set passes both, and carries 3/4 of the power.
	power, err := e.valset.Verify(digest, fromSigs(good))
	require.NoError(t, err)
	require.Equal(t, 3*payout.PowerTotal/4, power)
	e.send(e.relayer, e.vaultC, e.vault.PackProposeRoot(toValset(e.valset), good, 1, tr.Root(), usdc(100)))
}

func fromSigs(sigs []bindings.SettlementVaultSignature) []payout.Signature {
	out := make([]payout.Signature, len(sigs))
	for i, s := range sigs {
		out[i] = payout.Signature{Index: s.Index, V: s.V, R: s.R, S: s.S}
	}
	return out
}
