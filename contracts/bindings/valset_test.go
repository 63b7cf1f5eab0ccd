package bindings_test

import (
	"crypto/ecdsa"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/contracts/bindings"
	"github.com/idlegpu/idlegpu/contracts/payout"
)

// signDigest signs a vault digest with an actor's key.
func signDigest(a actor, digest [32]byte) (uint8, [32]byte, [32]byte, error) {
	return payout.SignDigest(a.key, digest)
}

// TestValsetRotation rotates 4 equal validators to 5 unequal ones (signed
// by 3 of the 4), then: the old set can no longer propose (stale valset),
// a root signed by the new set is accepted and paid, a replayed or
// non-increasing rotation is refused.
func TestValsetRotation(t *testing.T) {
	e := newEnv(t, 4)
	e.deposit(e.renters[0], usdc(100), e.renters[0].addr)
	old := e.valset

	newKeys, _ := validatorKeys(t, "rotated", 5, 0)
	members := make([]payout.Member, len(newKeys))
	for i, k := range newKeys {
		members[i] = payout.Member{Address: keyAddr(k), Power: uint64(10 * (i + 1))}
	}
	next, err := payout.NewValset(2, members)
	require.NoError(t, err)
	byAddr := map[common.Address]int{}
	for i, k := range newKeys {
		byAddr[keyAddr(k)] = i
	}
	ordered := make([]*ecdsa.PrivateKey, len(next.Validators))
	for i, a := range next.Validators {
		ordered[i] = newKeys[byAddr[a]]
	}

	checkpoint := e.domain.ValsetCheckpoint(next)
	// 2 of 4 cannot rotate.
	e.expectVaultError(e.relayer, e.vault.PackUpdateValset(toValset(next), toValset(old), e.sign(checkpoint, 0, 3)),
		&bindings.SettlementVaultInsufficientPower{Signed: new(big.Int).SetUint64(payout.PowerTotal / 2)})
	rcpt := e.send(e.relayer, e.vaultC, e.vault.PackUpdateValset(toValset(next), toValset(old), e.sign(checkpoint, 0, 1, 3)))
	ev, err := e.vault.UnpackValsetUpdatedEvent(rcpt.Logs[0])
	require.NoError(t, err)
	require.Equal(t, uint64(2), ev.Nonce)
	require.Equal(t, [32]byte(checkpoint), ev.Checkpoint)
	require.Equal(t, next.Validators, ev.Validators)
	require.Equal(t, next.Powers, ev.Powers)
	stored, err := e.vault.UnpackValsetCheckpoint(e.view(e.vault.PackValsetCheckpoint()))
	require.NoError(t, err)
	require.Equal(t, [32]byte(checkpoint), stored)

	// The old set is stale: its proposals and rotations are refused.
	tr := tree(t, entry(e.providers[0].addr, usdc(100)))
	oldDigest := e.rootDigest(1, tr.Root(), usdc(100))
	e.expectVaultError(e.relayer, e.vault.PackProposeRoot(toValset(old), e.sign(oldDigest, 0, 1, 2, 3), 1, tr.Root(), usdc(100)),
		&bindings.SettlementVaultValsetMismatch{Given: e.domain.ValsetCheckpoint(old), Stored: checkpoint})
	e.expectVaultError(e.relayer, e.vault.PackUpdateValset(toValset(next), toValset(old), e.sign(checkpoint, 0, 1, 2)),
		&bindings.SettlementVaultValsetMismatch{Given: e.domain.ValsetCheckpoint(old), Stored: checkpoint})

	// The new set proposes. Its powers are 10..50 of 150: the four lighter
	// validators hold exactly 2/3 (rounded down, not more), so they are
	// refused; the four heavier ones pass.
	e.valset, e.valKeys = next, ordered
	idx := func(members ...int) []int {
		var out []int
		for _, m := range members {
			out = append(out, next.IndexOf(keyAddr(newKeys[m])))
		}
		return out
	}
	digest := e.rootDigest(1, tr.Root(), usdc(100))
	var lightPower uint64
	for _, i := range idx(0, 1, 2, 3) {
		lightPower += next.Powers[i]
	}
	require.LessOrEqual(t, lightPower, payout.PowerThreshold)
	e.expectVaultError(e.relayer, e.vault.PackProposeRoot(toValset(next), e.sign(digest, idx(0, 1, 2, 3)...), 1, tr.Root(), usdc(100)),
		&bindings.SettlementVaultInsufficientPower{Signed: new(big.Int).SetUint64(lightPower)})
	e.send(e.relayer, e.vaultC, e.vault.PackProposeRoot(toValset(next), e.sign(digest, idx(1, 2, 3, 4)...), 1, tr.Root(), usdc(100)))
	e.wait(rootDelay)
	e.send(e.relayer, e.vaultC, e.vault.PackAcceptRoot(1))
	e.send(e.providers[0], e.vaultC, e.claimData(tr, e.providers[0].addr))
	require.Equal(t, usdc(100), e.balance(e.providers[0].addr))
	e.checkSolvent()

	// A rotation must raise the nonce.
	same := next
	e.expectVaultError(e.relayer, e.vault.PackUpdateValset(toValset(same), toValset(next), e.sign(e.domain.ValsetCheckpoint(same), 0, 1, 2, 3, 4)),
		&bindings.SettlementVaultValsetNonceNotIncreasing{Nonce: 2, Current: 2})
	// And the new set must itself be valid.
	bad := payout.Valset{Validators: next.Validators, Powers: make([]uint64, len(next.Powers)), Nonce: 3}
	copy(bad.Powers, next.Powers)
	bad.Powers[2] = 0
	e.expectVaultError(e.relayer, e.vault.PackUpdateValset(toValset(bad), toValset(next), e.sign(e.domain.ValsetCheckpoint(bad), 0, 1, 2, 3, 4)),
		&bindings.SettlementVaultZeroPower{Index: big.NewInt(2)})
}

func keyAddr(k *ecdsa.PrivateKey) common.Address { return crypto.PubkeyToAddress(k.PublicKey) }
