package bindings_test

import (
	"math/big"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/contracts/bindings"
)

// TestPauseBlocksClaimsAndAcceptance: while paused, deposits, acceptance
// and claims are refused (proposals are not: a proposal while paused
// cancels the roots still pending, how validators correct a bad one);
// unpaused, all resume.
func TestPauseBlocksClaimsAndAcceptance(t *testing.T) {
	e := newEnv(t, 4)
	e.deposit(e.renters[0], usdc(100), e.renters[0].addr)
	p0 := e.providers[0]
	t1 := tree(t, entry(p0.addr, usdc(10)))
	e.publish(1, t1)
	t2 := tree(t, entry(p0.addr, usdc(30)))
	e.proposeTree(2, t2)

	rcpt := e.send(e.guardian, e.vaultC, e.vault.PackPause())
	ev, err := e.vault.UnpackPausedEvent(rcpt.Logs[0])
	require.NoError(t, err)
	require.Equal(t, e.guardian.addr, ev.Account)
	e.wait(rootDelay)

	e.expectVaultError(p0, e.claimData(t1, p0.addr), &bindings.SettlementVaultEnforcedPause{})
	e.expectVaultError(e.relayer, e.vault.PackAcceptRoot(2), &bindings.SettlementVaultEnforcedPause{})
	e.send(e.renters[0], e.tokenC, e.token.PackApprove(e.vaultAddr, usdc(1)))
	e.expectVaultError(e.renters[0], e.vault.PackDeposit(usdc(1), p0.addr), &bindings.SettlementVaultEnforcedPause{})
	e.expectVaultError(e.guardian, e.vault.PackPause(), &bindings.SettlementVaultEnforcedPause{})
	// Validators can still propose while paused, which cancels root 2.
	t3 := tree(t, entry(p0.addr, usdc(25)))
	rcpt = e.proposeTree(3, t3)
	cancel, err := e.vault.UnpackRootsCancelledEvent(rcpt.Logs[0])
	require.NoError(t, err)
	require.Equal(t, uint64(2), cancel.ThroughEpoch)

	e.send(e.guardian, e.vaultC, e.vault.PackUnpause())
	e.expectVaultError(e.guardian, e.vault.PackUnpause(), &bindings.SettlementVaultExpectedPause{})
	e.send(p0, e.vaultC, e.claimData(t1, p0.addr))
	require.Equal(t, usdc(10), e.balance(p0.addr))
	e.expectVaultError(e.relayer, e.vault.PackAcceptRoot(2), &bindings.SettlementVaultRootCancelled{Epoch: 2, CancelledThrough: 2})
	e.wait(rootDelay)
	e.send(e.relayer, e.vaultC, e.vault.PackAcceptRoot(3))
	require.Equal(t, uint64(3), e.accepted().Epoch)
	e.send(p0, e.vaultC, e.claimData(t3, p0.addr))
	require.Equal(t, usdc(25), e.balance(p0.addr))
	e.checkSolvent()
}

// TestGuardianCannotDoMore: only the guardian pauses; the guardian cannot
// rotate the set, propose or cancel a root, or take funds (the vault has
// no function that pays anyone but a leaf's account: the whole list of
// state-changing methods, with their arguments, is pinned here).
func TestGuardianCannotDoMore(t *testing.T) {
	e := newEnv(t, 4)
	e.deposit(e.renters[0], usdc(100), e.renters[0].addr)
	for _, a := range []actor{e.relayer, e.renters[0], e.deployer} {
		e.expectVaultError(a, e.vault.PackPause(), &bindings.SettlementVaultNotGuardian{Caller: a.addr})
	}
	e.send(e.guardian, e.vaultC, e.vault.PackPause())
	e.expectVaultError(e.relayer, e.vault.PackUnpause(), &bindings.SettlementVaultNotGuardian{Caller: e.relayer.addr})
	e.send(e.guardian, e.vaultC, e.vault.PackUnpause())

	// The guardian's own signature counts for nothing.
	gsig := func(digest [32]byte) []bindings.SettlementVaultSignature {
		v, r, s, err := signDigest(e.guardian, digest)
		require.NoError(t, err)
		return []bindings.SettlementVaultSignature{{Index: 0, V: v, R: r, S: s}}
	}
	tr := tree(t, entry(e.guardian.addr, usdc(100)))
	raw := e.revertData(e.guardian, e.vaultC, e.vault.PackProposeRoot(toValset(e.valset), gsig(e.rootDigest(1, tr.Root(), usdc(100))), 1, tr.Root(), usdc(100)))
	got, err := e.vault.UnpackError(raw)
	require.NoError(t, err)
	requireSameError(t, &bindings.SettlementVaultWrongSigner{Position: big.NewInt(0), Expected: e.valset.Validators[0], Recovered: e.guardian.addr}, got)

	next := e.valset
	next.Nonce = 2
	raw = e.revertData(e.guardian, e.vaultC, e.vault.PackUpdateValset(toValset(next), toValset(e.valset), gsig(e.domain.ValsetCheckpoint(next))))
	got, err = e.vault.UnpackError(raw)
	require.NoError(t, err)
	require.IsType(t, &bindings.SettlementVaultWrongSigner{}, got)

	var mutating []string
	for name, m := range e.vault.GetABI().Methods {
		if !m.IsConstant() {
			require.Equal(t, name, m.RawName)
			mutating = append(mutating, m.Sig)
		}
	}
	sort.Strings(mutating)
	require.Equal(t, []string{
		"acceptRoot(uint64)",
		"claim(address,uint256,bytes32[])",
		"deposit(uint256,address)",
		"pause()",
		"proposeRoot((address[],uint64[],uint64),(uint32,uint8,bytes32,bytes32)[],uint64,bytes32,uint256)",
		"unpause()",
		"updateValset((address[],uint64[],uint64),(address[],uint64[],uint64),(uint32,uint8,bytes32,bytes32)[])",
	}, mutating)
	require.Equal(t, usdc(100), e.balance(e.vaultAddr))
	require.Zero(t, e.balance(e.guardian.addr).Sign())
}
