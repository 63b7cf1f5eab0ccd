package bindings_test

import (
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/contracts/bindings"
	"github.com/idlegpu/idlegpu/contracts/payout"
)

// TestRootSignedByThreeOfFour: 3 of 4 equal validators carry 3/4 of the
// power (> 2/3): the root is proposed, pending for the timelock.
func TestRootSignedByThreeOfFour(t *testing.T) {
	e := newEnv(t, 4)
	e.deposit(e.renters[0], usdc(100), e.renters[0].addr)
	tr := tree(t, entry(e.providers[0].addr, usdc(60)), entry(e.providers[1].addr, usdc(40)))

	rcpt := e.proposeTree(1, tr, 0, 2, 3)
	ev, err := e.vault.UnpackRootProposedEvent(rcpt.Logs[0])
	require.NoError(t, err)
	head, err := e.client.HeaderByNumber(e.ctx, rcpt.BlockNumber)
	require.NoError(t, err)
	require.Equal(t, uint64(1), ev.Epoch)
	require.Equal(t, [32]byte(tr.Root()), ev.Root)
	require.Equal(t, usdc(100), ev.TotalCumulative)
	require.Equal(t, head.Time+3600, ev.AcceptableAt)
	require.Equal(t, uint64(1), ev.ValsetNonce)

	p := e.pending(1)
	require.Equal(t, [32]byte(tr.Root()), p.Root)
	require.Equal(t, usdc(100), p.TotalCumulative)
	require.Equal(t, uint64(1), p.Epoch)
	require.Equal(t, head.Time+3600, p.AcceptableAt)
	require.Equal(t, [32]byte{}, e.accepted().Root, "nothing accepted before the timelock")
	last, err := e.vault.UnpackLastProposedEpoch(e.view(e.vault.PackLastProposedEpoch()))
	require.NoError(t, err)
	require.Equal(t, uint64(1), last)
}

// TestRootSignedByTwoOfFourRefused: half the power is not more than 2/3.
func TestRootSignedByTwoOfFourRefused(t *testing.T) {
	e := newEnv(t, 4)
	e.deposit(e.renters[0], usdc(100), e.renters[0].addr)
	tr := tree(t, entry(e.providers[0].addr, usdc(100)))
	sigs := e.sign(e.rootDigest(1, tr.Root(), usdc(100)), 1, 3)
	e.expectVaultError(e.relayer, e.vault.PackProposeRoot(toValset(e.valset), sigs, 1, tr.Root(), usdc(100)),
		&bindings.SettlementVaultInsufficientPower{Signed: new(big.Int).SetUint64(payout.PowerTotal / 2)})
	e.expectVaultError(e.relayer, e.vault.PackProposeRoot(toValset(e.valset), nil, 1, tr.Root(), usdc(100)),
		&bindings.SettlementVaultInsufficientPower{Signed: big.NewInt(0)})
}

// TestClaimBeforeAndAfterTimelock: before the delay neither acceptance nor
// a claim goes through; after it, acceptance does and the claim pays the
// leaf in full.
func TestClaimBeforeAndAfterTimelock(t *testing.T) {
	e := newEnv(t, 4)
	e.deposit(e.renters[0], usdc(100), e.renters[0].addr)
	p0, p1 := e.providers[0], e.providers[1]
	tr := tree(t, entry(p0.addr, usdc(70)), entry(p1.addr, usdc(30)))
	rcpt := e.proposeTree(1, tr)
	ev, err := e.vault.UnpackRootProposedEvent(rcpt.Logs[0])
	require.NoError(t, err)

	e.expectVaultError(p0, e.claimData(tr, p0.addr), &bindings.SettlementVaultNoAcceptedRoot{})
	e.wait(rootDelay - 10*time.Second)
	head, err := e.client.HeaderByNumber(e.ctx, nil)
	require.NoError(t, err)
	raw := e.revertData(e.relayer, e.vaultC, e.vault.PackAcceptRoot(1))
	got, err := e.vault.UnpackError(raw)
	require.NoError(t, err)
	tl, ok := got.(*bindings.SettlementVaultTimelockNotExpired)
	require.True(t, ok, "got %#v", got)
	require.Equal(t, ev.AcceptableAt, tl.AcceptableAt)
	// The node estimates on the head or the block after it.
	require.True(t, tl.Timestamp.Uint64() == head.Time || tl.Timestamp.Uint64() == head.Time+1, "timestamp %s, head %d", tl.Timestamp, head.Time)
	require.Less(t, tl.Timestamp.Uint64(), ev.AcceptableAt)
	e.expectVaultError(p0, e.claimData(tr, p0.addr), &bindings.SettlementVaultNoAcceptedRoot{})

	e.wait(10 * time.Second)
	rcpt = e.send(e.relayer, e.vaultC, e.vault.PackAcceptRoot(1))
	acc, err := e.vault.UnpackRootAcceptedEvent(rcpt.Logs[0])
	require.NoError(t, err)
	require.Equal(t, &bindings.SettlementVaultRootAccepted{Epoch: 1, Root: tr.Root(), TotalCumulative: usdc(100), Raw: rcpt.Logs[0]}, acc)
	gone := e.pending(1)
	require.Equal(t, [32]byte{}, gone.Root, "the accepted entry is deleted")
	require.Zero(t, gone.TotalCumulative.Sign())
	require.Zero(t, gone.Epoch)
	require.Zero(t, gone.AcceptableAt)
	e.expectVaultError(e.relayer, e.vault.PackAcceptRoot(1), &bindings.SettlementVaultNoPendingRoot{Epoch: 1})
	e.expectVaultError(e.relayer, e.vault.PackAcceptRoot(2), &bindings.SettlementVaultNoPendingRoot{Epoch: 2})

	// Anyone may claim for p0; the money goes to p0.
	rcpt = e.send(e.relayer, e.vaultC, e.claimData(tr, p0.addr))
	cl := claimedEvent(t, e, rcpt)
	require.Equal(t, p0.addr, cl.Account)
	require.Equal(t, usdc(70), cl.Amount)
	require.Equal(t, usdc(70), cl.Cumulative)
	require.Equal(t, uint64(1), cl.Epoch)
	require.Equal(t, usdc(70), e.balance(p0.addr))
	require.Zero(t, e.balance(e.relayer.addr).Sign())
	require.Equal(t, usdc(70), e.claimed(p0.addr))
	require.Equal(t, usdc(70), e.totalClaimed())
	require.Equal(t, usdc(30), e.balance(e.vaultAddr))
	e.checkSolvent()
}

// TestCumulativeClaims: the same cumulative cannot be claimed twice; a
// later root with a higher cumulative pays only the difference; a leaf
// that did not grow pays nothing more.
func TestCumulativeClaims(t *testing.T) {
	e := newEnv(t, 4)
	e.deposit(e.renters[0], usdc(300), e.renters[0].addr)
	p0, p1 := e.providers[0], e.providers[1]

	t1 := tree(t, entry(p0.addr, usdc(50)), entry(p1.addr, usdc(20)))
	e.publish(1, t1)
	e.send(p0, e.vaultC, e.claimData(t1, p0.addr))
	e.expectVaultError(p0, e.claimData(t1, p0.addr),
		&bindings.SettlementVaultNothingToClaim{Account: p0.addr, Cumulative: usdc(50), AlreadyClaimed: usdc(50)})

	t2 := tree(t, entry(p0.addr, usdc(120)), entry(p1.addr, usdc(20)), entry(e.providers[2].addr, usdc(5)))
	e.publish(2, t2)
	// The old root's proof no longer verifies.
	e.expectVaultError(p1, e.claimData(t1, p1.addr), &bindings.SettlementVaultInvalidProof{})
	rcpt := e.send(p0, e.vaultC, e.claimData(t2, p0.addr))
	cl := claimedEvent(t, e, rcpt)
	require.Equal(t, usdc(70), cl.Amount, "120 cumulative less the 50 already paid")
	require.Equal(t, uint64(2), cl.Epoch)
	require.Equal(t, usdc(120), e.balance(p0.addr))
	require.Equal(t, usdc(120), e.claimed(p0.addr))

	// p1 never claimed under epoch 1: it is paid its whole cumulative now.
	e.send(p1, e.vaultC, e.claimData(t2, p1.addr))
	require.Equal(t, usdc(20), e.balance(p1.addr))
	e.expectVaultError(p1, e.claimData(t2, p1.addr),
		&bindings.SettlementVaultNothingToClaim{Account: p1.addr, Cumulative: usdc(20), AlreadyClaimed: usdc(20)})
	require.Equal(t, usdc(140), e.totalClaimed())
	e.checkSolvent()

	// A leaf below what was already paid (a wrong tree) pays nothing.
	t3 := tree(t, entry(p0.addr, usdc(100)), entry(p1.addr, usdc(45)))
	e.publish(3, t3)
	e.expectVaultError(p0, e.claimData(t3, p0.addr),
		&bindings.SettlementVaultNothingToClaim{Account: p0.addr, Cumulative: usdc(100), AlreadyClaimed: usdc(120)})
}

// TestClaimRefusals: a wrong amount, a wrong proof and a tree whose leaves
// add up to more than its total.
func TestClaimRefusals(t *testing.T) {
	e := newEnv(t, 4)
	e.deposit(e.renters[0], usdc(100), e.renters[0].addr)
	p0, p1 := e.providers[0], e.providers[1]

	// Leaves 80 + 80 under a total of 100 (the deposits): the first claim
	// pays, the second would take the vault past the root's total.
	tr := tree(t, entry(p0.addr, usdc(80)), entry(p1.addr, usdc(80)))
	sigs := e.sign(e.rootDigest(1, tr.Root(), usdc(100)), 0, 1, 2)
	e.send(e.relayer, e.vaultC, e.vault.PackProposeRoot(toValset(e.valset), sigs, 1, tr.Root(), usdc(100)))
	e.wait(rootDelay)
	e.send(e.relayer, e.vaultC, e.vault.PackAcceptRoot(1))

	_, proof, err := tr.Proof(p0.addr)
	require.NoError(t, err)
	e.expectVaultError(p0, e.vault.PackClaim(p0.addr, usdc(81), toProof(proof)), &bindings.SettlementVaultInvalidProof{})
	e.expectVaultError(p0, e.vault.PackClaim(p1.addr, usdc(80), toProof(proof)), &bindings.SettlementVaultInvalidProof{})
	e.expectVaultError(p0, e.vault.PackClaim(p0.addr, usdc(80), nil), &bindings.SettlementVaultInvalidProof{})

	e.send(p0, e.vaultC, e.claimData(tr, p0.addr))
	e.expectVaultError(p1, e.claimData(tr, p1.addr),
		&bindings.SettlementVaultClaimsAboveTotal{Claimed: usdc(160), TotalCumulative: usdc(100)})
	require.Equal(t, usdc(80), e.totalClaimed())
	require.Zero(t, e.balance(p1.addr).Sign())
	e.checkSolvent()
}

// TestRootRefusals: a zero root, a non-increasing epoch, a total above the
// deposits and a total below the accepted one.
func TestRootRefusals(t *testing.T) {
	e := newEnv(t, 4)
	e.deposit(e.renters[0], usdc(100), e.renters[0].addr)
	vs := toValset(e.valset)
	propose := func(epoch uint64, root common.Hash, total *big.Int) []byte {
		return e.vault.PackProposeRoot(vs, e.sign(e.rootDigest(epoch, root, total), 0, 1, 2), epoch, root, total)
	}
	t1 := tree(t, entry(e.providers[0].addr, usdc(40)))

	e.expectVaultError(e.relayer, propose(1, common.Hash{}, usdc(1)), &bindings.SettlementVaultZeroRoot{})
	e.expectVaultError(e.relayer, propose(0, t1.Root(), usdc(40)), &bindings.SettlementVaultEpochNotIncreasing{Epoch: 0, Last: 0})
	e.expectVaultError(e.relayer, propose(1, t1.Root(), new(big.Int).Add(usdc(100), big.NewInt(1))),
		&bindings.SettlementVaultTotalAboveDeposits{TotalCumulative: new(big.Int).Add(usdc(100), big.NewInt(1)), Deposited: usdc(100)})

	e.publish(5, t1)
	e.expectVaultError(e.relayer, propose(5, t1.Root(), usdc(40)), &bindings.SettlementVaultEpochNotIncreasing{Epoch: 5, Last: 5})
	e.expectVaultError(e.relayer, propose(4, t1.Root(), usdc(40)), &bindings.SettlementVaultEpochNotIncreasing{Epoch: 4, Last: 5})
	e.expectVaultError(e.relayer, propose(6, t1.Root(), usdc(39)),
		&bindings.SettlementVaultTotalDecreased{TotalCumulative: usdc(39), Accepted: usdc(40)})

	// Signed for other values than the ones submitted: the signers recover
	// to other addresses.
	t2 := tree(t, entry(e.providers[0].addr, usdc(50)))
	sigs := e.sign(e.rootDigest(6, t2.Root(), usdc(50)), 0, 1, 2)
	raw := e.revertData(e.relayer, e.vaultC, e.vault.PackProposeRoot(vs, sigs, 6, t2.Root(), usdc(60)))
	got, err := e.vault.UnpackError(raw)
	require.NoError(t, err)
	ws, ok := got.(*bindings.SettlementVaultWrongSigner)
	require.True(t, ok, "got %#v", got)
	require.Zero(t, ws.Position.Sign())
	require.Equal(t, e.valset.Validators[0], ws.Expected)
}

// TestLaterRootDoesNotDelayEarlier: each root keeps the timelock of its
// own proposal. A later proposal neither replaces nor delays an earlier
// root; accepting a root supersedes every earlier one; a root is checked
// against the accepted total again when it is accepted.
func TestLaterRootDoesNotDelayEarlier(t *testing.T) {
	e := newEnv(t, 4)
	e.deposit(e.renters[0], usdc(100), e.renters[0].addr)
	p0, p1 := e.providers[0], e.providers[1]
	t1 := tree(t, entry(p0.addr, usdc(10)))
	t2 := tree(t, entry(p0.addr, usdc(10)), entry(p1.addr, usdc(10)))

	at1 := acceptableAt(t, e, e.proposeTree(1, t1))
	e.wait(rootDelay / 2)
	rcpt := e.proposeTree(2, t2)
	require.Len(t, rcpt.Logs, 1, "only RootProposed: nothing replaced or cancelled")
	at2 := acceptableAt(t, e, rcpt)
	require.Equal(t, bindings.PendingRootsOutput{Root: t1.Root(), TotalCumulative: usdc(10), Epoch: 1, AcceptableAt: at1}, e.pending(1),
		"root 1 untouched by the proposal of root 2")
	require.Equal(t, bindings.PendingRootsOutput{Root: t2.Root(), TotalCumulative: usdc(20), Epoch: 2, AcceptableAt: at2}, e.pending(2))
	require.Equal(t, uint64(2), e.lastProposed())
	require.Zero(t, e.cancelledThrough())

	// Root 1 is due at its own time, root 2 is not.
	e.wait(rootDelay / 2)
	head, err := e.client.HeaderByNumber(e.ctx, nil)
	require.NoError(t, err)
	require.GreaterOrEqual(t, head.Time, at1)
	require.Less(t, head.Time+1, at2)
	raw := e.revertData(e.relayer, e.vaultC, e.vault.PackAcceptRoot(2))
	got, err := e.vault.UnpackError(raw)
	require.NoError(t, err)
	tl, ok := got.(*bindings.SettlementVaultTimelockNotExpired)
	require.True(t, ok, "got %#v", got)
	require.Equal(t, at2, tl.AcceptableAt)
	rcpt = e.send(e.relayer, e.vaultC, e.vault.PackAcceptRoot(1))
	acc, err := e.vault.UnpackRootAcceptedEvent(rcpt.Logs[0])
	require.NoError(t, err)
	require.Equal(t, &bindings.SettlementVaultRootAccepted{Epoch: 1, Root: t1.Root(), TotalCumulative: usdc(10), Raw: rcpt.Logs[0]}, acc)
	e.send(p0, e.vaultC, e.claimData(t1, p0.addr))

	// Root 2 follows at its own time and supersedes root 1.
	e.wait(rootDelay / 2)
	e.send(e.relayer, e.vaultC, e.vault.PackAcceptRoot(2))
	require.Equal(t, bindings.AcceptedRootOutput{Root: t2.Root(), TotalCumulative: usdc(20), Epoch: 2, AcceptableAt: at2}, e.accepted())
	e.send(p1, e.vaultC, e.claimData(t2, p1.addr))
	require.Equal(t, usdc(10), e.balance(p1.addr))

	// Accepting a later root first supersedes the earlier one for good.
	t3 := tree(t, entry(p0.addr, usdc(30)))
	t4 := tree(t, entry(p0.addr, usdc(40)))
	e.proposeTree(3, t3)
	e.proposeTree(4, t4)
	e.wait(rootDelay)
	e.send(e.relayer, e.vaultC, e.vault.PackAcceptRoot(4))
	e.expectVaultError(e.relayer, e.vault.PackAcceptRoot(3), &bindings.SettlementVaultRootSuperseded{Epoch: 3, AcceptedEpoch: 4})
	e.expectVaultError(e.relayer, e.vault.PackAcceptRoot(4), &bindings.SettlementVaultNoPendingRoot{Epoch: 4})
	e.expectVaultError(e.relayer, e.vault.PackAcceptRoot(5), &bindings.SettlementVaultNoPendingRoot{Epoch: 5})

	// Both proposed above the accepted total (40), but once root 5 (total
	// 90) is accepted, root 6 (total 60) would lower it.
	t5 := tree(t, entry(p0.addr, usdc(90)))
	t6 := tree(t, entry(p0.addr, usdc(60)))
	e.proposeTree(5, t5)
	e.proposeTree(6, t6)
	e.wait(rootDelay)
	e.send(e.relayer, e.vaultC, e.vault.PackAcceptRoot(5))
	e.expectVaultError(e.relayer, e.vault.PackAcceptRoot(6),
		&bindings.SettlementVaultTotalDecreased{TotalCumulative: usdc(60), Accepted: usdc(90)})
	require.Equal(t, uint64(5), e.accepted().Epoch)
	e.checkSolvent()
}

// TestPausedProposalCancelsEarlierRoots: the correction path. A bad root is
// proposed; the guardian pauses; the validators propose a corrected later
// root while paused, which cancels the bad one. The bad root can never be
// accepted; the corrected one is accepted after its own timelock, once
// unpaused.
func TestPausedProposalCancelsEarlierRoots(t *testing.T) {
	e := newEnv(t, 4)
	e.deposit(e.renters[0], usdc(100), e.renters[0].addr)
	p0, p1 := e.providers[0], e.providers[1]
	bad := tree(t, entry(p0.addr, usdc(100)))
	good := tree(t, entry(p0.addr, usdc(10)), entry(p1.addr, usdc(10)))

	e.proposeTree(1, bad)
	e.wait(rootDelay / 2)
	e.send(e.guardian, e.vaultC, e.vault.PackPause())
	rcpt := e.proposeTree(2, good)
	require.Len(t, rcpt.Logs, 2)
	cancel, err := e.vault.UnpackRootsCancelledEvent(rcpt.Logs[0])
	require.NoError(t, err)
	require.Equal(t, uint64(1), cancel.ThroughEpoch)
	atGood := acceptableAt(t, e, rcpt)
	require.Equal(t, uint64(1), e.cancelledThrough())

	// The bad root's timelock passes; paused, nothing is accepted.
	e.wait(rootDelay / 2)
	e.expectVaultError(e.relayer, e.vault.PackAcceptRoot(1), &bindings.SettlementVaultEnforcedPause{})
	e.expectVaultError(e.relayer, e.vault.PackAcceptRoot(2), &bindings.SettlementVaultEnforcedPause{})
	e.send(e.guardian, e.vaultC, e.vault.PackUnpause())
	e.expectVaultError(e.relayer, e.vault.PackAcceptRoot(1), &bindings.SettlementVaultRootCancelled{Epoch: 1, CancelledThrough: 1})
	raw := e.revertData(e.relayer, e.vaultC, e.vault.PackAcceptRoot(2))
	got, err := e.vault.UnpackError(raw)
	require.NoError(t, err)
	tl, ok := got.(*bindings.SettlementVaultTimelockNotExpired)
	require.True(t, ok, "got %#v", got)
	require.Equal(t, atGood, tl.AcceptableAt)

	e.wait(rootDelay / 2)
	e.send(e.relayer, e.vaultC, e.vault.PackAcceptRoot(2))
	require.Equal(t, uint64(2), e.accepted().Epoch)
	e.expectVaultError(e.relayer, e.vault.PackAcceptRoot(1), &bindings.SettlementVaultRootSuperseded{Epoch: 1, AcceptedEpoch: 2})
	e.expectVaultError(p0, e.claimData(bad, p0.addr), &bindings.SettlementVaultInvalidProof{})
	e.send(p0, e.vaultC, e.claimData(good, p0.addr))
	require.Equal(t, usdc(10), e.balance(p0.addr))

	// A proposal while paused with nothing pending cancels nothing; one
	// while unpaused never does.
	e.send(e.guardian, e.vaultC, e.vault.PackPause())
	rcpt = e.proposeTree(3, tree(t, entry(p0.addr, usdc(20))))
	require.Len(t, rcpt.Logs, 1, "only RootProposed")
	require.Equal(t, uint64(1), e.cancelledThrough())
	e.send(e.guardian, e.vaultC, e.vault.PackUnpause())
	rcpt = e.proposeTree(4, tree(t, entry(p0.addr, usdc(30))))
	require.Len(t, rcpt.Logs, 1, "only RootProposed")
	require.Equal(t, uint64(1), e.cancelledThrough())
	e.wait(rootDelay)
	e.send(e.relayer, e.vaultC, e.vault.PackAcceptRoot(3))
	e.send(e.relayer, e.vaultC, e.vault.PackAcceptRoot(4))
	require.Equal(t, usdc(30), e.accepted().TotalCumulative)
	e.checkSolvent()
}

// acceptableAt returns the acceptableAt of the RootProposed event in rcpt
// and checks it is the proposal block's time plus the delay.
func acceptableAt(t *testing.T, e *env, rcpt *types.Receipt) uint64 {
	t.Helper()
	var found *bindings.SettlementVaultRootProposed
	for _, l := range rcpt.Logs {
		if ev, err := e.vault.UnpackRootProposedEvent(l); err == nil {
			found = ev
		}
	}
	require.NotNil(t, found, "no RootProposed event")
	head, err := e.client.HeaderByNumber(e.ctx, rcpt.BlockNumber)
	require.NoError(t, err)
	require.Equal(t, head.Time+uint64(rootDelay/time.Second), found.AcceptableAt)
	return found.AcceptableAt
}

// claimedEvent returns the one Claimed event of a claim's receipt.
func claimedEvent(t *testing.T, e *env, rcpt *types.Receipt) *bindings.SettlementVaultClaimed {
	t.Helper()
	var found *bindings.SettlementVaultClaimed
	for _, l := range rcpt.Logs {
		if ev, err := e.vault.UnpackClaimedEvent(l); err == nil {
			require.Nil(t, found, "two Claimed events")
			found = ev
		}
	}
	require.NotNil(t, found, "no Claimed event")
	return found
}
