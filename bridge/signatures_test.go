package bridge

import (
	"crypto/ecdsa"
	"fmt"
	"math/big"
	"testing"

	sdkmath "cosmossdk.io/math"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/contracts/payout"
	bridgetypes "github.com/idlegpu/idlegpu/x/bridge/types"
)

// fourValidators is a set of four equal validators, as the chain would
// record it, with their keys by EVM address.
func fourValidators(t *testing.T) (bridgeParams, bridgetypes.Valset, payout.Valset, map[common.Address]*ecdsa.PrivateKey) {
	t.Helper()
	keys := map[common.Address]*ecdsa.PrivateKey{}
	var members []payout.Member
	for i := 0; i < 4; i++ {
		k, err := crypto.ToECDSA(crypto.Keccak256([]byte(fmt.Sprintf("bridge signatures test %d", i))))
		require.NoError(t, err)
		a := crypto.PubkeyToAddress(k.PublicKey)
		keys[a] = k
		members = append(members, payout.Member{Address: a, Power: 10})
	}
	pv, err := payout.NewValset(7, members)
	require.NoError(t, err)
	p := bridgeParams{domain: payout.Domain{VaultID: crypto.Keccak256Hash([]byte("v")), ChainID: big.NewInt(1337),
		Vault: common.HexToAddress("0x00000000000000000000000000000000000000aa")}}
	cv := bridgetypes.Valset{Nonce: 7, Checkpoint: p.domain.ValsetCheckpoint(pv).Hex()}
	for i, a := range pv.Validators {
		cv.Members = append(cv.Members, bridgetypes.ValsetMember{EvmAddress: a.Hex(), Power: pv.Powers[i]})
	}
	return p, cv, pv, keys
}

func confirm(t *testing.T, key *ecdsa.PrivateKey, digest common.Hash) bridgetypes.Confirm {
	sig, err := bridgetypes.SignDigest(key, digest)
	require.NoError(t, err)
	return bridgetypes.Confirm{EvmAddress: crypto.PubkeyToAddress(key.PublicKey).Hex(), Signature: sig}
}

// TestSignaturesAssembly: the relayer orders confirms by index in the
// vault's set, drops those of strangers and bad signatures, and refuses
// (before gas) what the vault would refuse: 2 of 4 is not enough.
func TestSignaturesAssembly(t *testing.T) {
	p, cv, pv, keys := fourValidators(t)
	_, cp, err := p.checkedValset(cv)
	require.NoError(t, err)
	digest := crypto.Keccak256Hash([]byte("next set"))
	stranger, err := crypto.GenerateKey()
	require.NoError(t, err)
	v := pv.Validators
	bad := confirm(t, keys[v[1]], crypto.Keccak256Hash([]byte("something else")))
	// Out of order, with a stranger and a wrong signature among them.
	confirms := []bridgetypes.Confirm{confirm(t, keys[v[3]], digest), confirm(t, stranger, digest), bad,
		confirm(t, keys[v[0]], digest), confirm(t, keys[v[2]], digest)}
	sigs, err := signatures(pv, confirms, digest)
	require.NoError(t, err)
	require.Len(t, sigs, 3)
	for i, want := range []uint32{0, 2, 3} {
		require.Equal(t, want, sigs[i].Index)
	}
	_, err = signatures(pv, confirms[:3], digest)
	require.ErrorIs(t, err, payout.ErrInsufficientPower)
	require.NotEqual(t, cp, digest)
}

// TestCheckedValsetAndRoot: nothing is signed or relayed when the chain's
// checkpoint or digest is not what the members or fields give.
func TestCheckedValsetAndRoot(t *testing.T) {
	p, cv, pv, _ := fourValidators(t)
	_, cp, err := p.checkedValset(cv)
	require.NoError(t, err)
	require.Equal(t, p.domain.ValsetCheckpoint(pv), cp)

	tampered := cv
	tampered.Members = append([]bridgetypes.ValsetMember(nil), cv.Members...)
	tampered.Members[0].Power++
	tampered.Members[1].Power--
	_, _, err = p.checkedValset(tampered)
	require.ErrorContains(t, err, "is not")

	root := crypto.Keccak256Hash([]byte("root"))
	d, err := p.domain.RootDigest(7, 3, root, big.NewInt(1234))
	require.NoError(t, err)
	r := bridgetypes.PayoutRoot{Epoch: 3, Root: root.Hex(), TotalCumulative: sdkmath.NewInt(1234), ValsetNonce: 7, Digest: d.Hex()}
	gotRoot, gotDigest, err := p.checkedRoot(r)
	require.NoError(t, err)
	require.Equal(t, root, gotRoot)
	require.Equal(t, d, gotDigest)
	r.TotalCumulative = sdkmath.NewInt(1235)
	_, _, err = p.checkedRoot(r)
	require.ErrorContains(t, err, "is not")
}
