package keeper_test

import (
	"crypto/ecdsa"
	"math/big"
	"testing"
	"time"

	"cosmossdk.io/math"
	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/require"

	sdk "github.com/cosmos/cosmos-sdk/types"
	slashingtypes "github.com/cosmos/cosmos-sdk/x/slashing/types"

	"github.com/idlegpu/idlegpu/app/apptesting"
	"github.com/idlegpu/idlegpu/contracts/payout"
	"github.com/idlegpu/idlegpu/x/bridge/types"
)

// Each test validator bonds 1,000,000 tokens; equivocation_slash_bps is 500.
const (
	bondedTokens = 1_000_000
	slashed      = bondedTokens * types.DefaultEquivocationSlashBps / 10_000 // 50,000
)

// orphanHash is the hash of a block the EVM chain reorganised away.
var orphanHash = common.HexToHash("0x0badb10c0000000000000000000000000000000000000000000000000000beef")

// registeredNetwork is newNetwork with all four signers registered and the
// slashing module's signing info for each validator (what x/slashing keeps
// for every validator that bonded).
func registeredNetwork(t *testing.T) *network {
	n := newNetwork(t)
	ctx := n.app.NewUncachedContext(false, n.app.GetContextForCheckTx(nil).BlockHeader())
	for i := range 4 {
		cons := n.consAddr(i)
		require.NoError(t, n.app.SlashingKeeper.SetValidatorSigningInfo(ctx, cons,
			slashingtypes.NewValidatorSigningInfo(cons, 0, 0, time.Unix(0, 0).UTC(), false, 0)))
	}
	for i := range 4 {
		n.ok(n.tx(i, n.register(i)))
	}
	apptesting.NextBlock(t, n.app)
	return n
}

func (n *network) consAddr(i int) sdk.ConsAddress {
	v, err := n.app.StakingKeeper.GetValidator(n.ctx(), sdk.ValAddress(n.accs[i].Address))
	require.NoError(n.t, err)
	cons, err := v.GetConsAddr()
	require.NoError(n.t, err)
	return cons
}

// tokens and jailed read validator i's stake and status.
func (n *network) tokens(i int) int64 {
	v, err := n.app.StakingKeeper.GetValidator(n.ctx(), sdk.ValAddress(n.accs[i].Address))
	require.NoError(n.t, err)
	return v.Tokens.Int64()
}

func (n *network) jailed(i int) bool {
	v, err := n.app.StakingKeeper.GetValidator(n.ctx(), sdk.ValAddress(n.accs[i].Address))
	require.NoError(n.t, err)
	return v.IsJailed()
}

// orphaned is validator i's attestation of nonce from a block that was
// reorganised away: another block hash, block number and transaction.
func (n *network) orphaned(i int, nonce uint64, recipient common.Address, amount int64) *types.MsgAttestDeposit {
	m := n.attest(i, nonce, recipient, amount)
	m.EvmBlockHash = orphanHash.Hex()
	m.EvmBlockNumber = 99
	m.EvmTxHash = common.BigToHash(big.NewInt(int64(1_000 + nonce))).Hex()
	return m
}

func hasEvent(res *abci.ExecTxResult, typ string) bool {
	for _, e := range res.Events {
		if e.Type == typ {
			return true
		}
	}
	return false
}

// TestReorgSupersedesOrphanedAttestations: a reorg deeper than the
// orchestrators' depth splits the validators 2/2 between an orphaned and
// the canonical claim for nonce 1, so neither it nor nonce 2 behind it is
// credited. Once the two on the orphaned claim re-attest the canonical one
// (another block hash), their votes are replaced and both deposits are
// credited, once each, to the unit. Nobody is slashed.
func TestReorgSupersedesOrphanedAttestations(t *testing.T) {
	n := registeredNetwork(t)
	user := n.accs[4]
	userEvm := common.BytesToAddress(user.Address)
	q := keeperQuerier(n)

	n.ok(n.tx(0, n.orphaned(0, 1, userEvm, 5_000_000)))
	n.ok(n.tx(1, n.orphaned(1, 1, userEvm, 5_000_000)))
	n.ok(n.tx(2, n.attest(2, 1, userEvm, 5_000_000)))
	n.ok(n.tx(3, n.attest(3, 1, userEvm, 5_000_000)))
	for i := range 4 {
		n.ok(n.tx(i, n.attest(i, 2, userEvm, 7_000_000)))
	}
	apptesting.NextBlock(t, n.app)
	require.Equal(t, int64(0), n.balance(user.Address))
	require.Equal(t, uint64(0), n.status().Progress.LastCreditedNonce, "2/2 on nonce 1: nothing credited")

	// The orchestrator sees its standing votes and finds nonce 1's block gone.
	votes, err := q.Attestations(n.ctx(), &types.QueryAttestationsRequest{Validator: n.valoper(0)})
	require.NoError(t, err)
	require.Len(t, votes.Claims, 2)
	require.Equal(t, orphanHash.Hex(), votes.Claims[0].EvmBlockHash)
	require.Equal(t, uint64(2), votes.Claims[1].Nonce)
	_, err = q.Attestations(n.ctx(), &types.QueryAttestationsRequest{Validator: "bad"})
	require.Error(t, err)

	// The same claim again is no news.
	n.refused(n.tx(0, n.orphaned(0, 1, userEvm, 5_000_000)), types.ErrAlreadyAttested)

	// Validator 0 supersedes: 3 of 4 on the canonical claim credit nonce 1,
	// and nonce 2 behind it, in the same block.
	res := n.tx(0, n.attest(0, 1, userEvm, 5_000_000))
	n.ok(res)
	require.True(t, hasEvent(res, "idlegpu.bridge.v1.EventAttestationSuperseded"))
	require.Equal(t, uint64(2), n.status().Progress.LastCreditedNonce)
	require.Equal(t, int64(12_000_000), n.balance(user.Address))
	// Validator 1 supersedes too late: a credited nonce is never attested again.
	n.refused(n.tx(1, n.attest(1, 1, userEvm, 5_000_000)), types.ErrAlreadyAttested)
	for range 2 {
		apptesting.NextBlock(t, n.app)
	}
	require.Equal(t, int64(12_000_000), n.balance(user.Address), "each deposit credited once")
	require.Equal(t, "12000000", n.status().Totals.Deposited.String())
	dep, err := n.app.BridgeKeeper.Deposits.Get(n.ctx(), 1)
	require.NoError(t, err)
	require.Equal(t, blockHash(101).Hex(), dep.Claim.EvmBlockHash, "the canonical claim")
	for i := range 4 {
		require.Equal(t, int64(bondedTokens), n.tokens(i), "validator %d", i)
		require.False(t, n.jailed(i))
	}

	// Revoke: a vote for a deposit that vanished can be withdrawn, and the
	// nonce attested again later; a credited nonce cannot be revoked.
	n.ok(n.tx(0, n.orphaned(0, 3, userEvm, 1_000_000)))
	n.refused(n.tx(1, &types.MsgRevokeAttestation{Orchestrator: n.accs[1].Address.String(), Nonce: 3}), types.ErrNoStandingVote)
	n.refused(n.tx(0, &types.MsgRevokeAttestation{Orchestrator: n.accs[0].Address.String(), Nonce: 2}), types.ErrNoStandingVote)
	res = n.tx(0, &types.MsgRevokeAttestation{Orchestrator: n.accs[0].Address.String(), Nonce: 3})
	n.ok(res)
	require.True(t, hasEvent(res, "idlegpu.bridge.v1.EventAttestationRevoked"))
	votes, err = q.Attestations(n.ctx(), &types.QueryAttestationsRequest{Validator: n.valoper(0)})
	require.NoError(t, err)
	require.Empty(t, votes.Claims)
	n.refused(n.tx(0, n.attest(0, 5, userEvm, 1_000_000)), types.ErrNonceOutOfOrder)
	for i := range 3 {
		n.ok(n.tx(i, n.attest(i, 3, userEvm, 1_000_000)))
	}
	require.Equal(t, int64(13_000_000), n.balance(user.Address))
	require.NoError(t, n.app.BridgeKeeper.CheckInvariants(n.ctx()))
}

// TestDepositEquivocationSlashed: a second claim for one nonce from the
// same EVM block is provable equivocation: slashed by exactly
// equivocation_slash_bps of its bonded tokens and jailed, once, and the
// claim does not count. A reorg (another block hash) and a claim that only
// differs from other validators' are not punished.
func TestDepositEquivocationSlashed(t *testing.T) {
	n := registeredNetwork(t)
	user := n.accs[4]
	userEvm := common.BytesToAddress(user.Address)

	// Validator 2 follows a reorg: not punished.
	n.ok(n.tx(2, n.orphaned(2, 1, userEvm, 5_000_000)))
	n.ok(n.tx(2, n.attest(2, 1, userEvm, 5_000_000)))
	// Validator 1 reports another amount than validator 2: a Conflict on
	// record, nothing punished (it may be the honest one).
	n.ok(n.tx(1, n.attest(1, 1, userEvm, 9_000_000)))
	_, err := n.app.BridgeKeeper.Conflicts.Get(n.ctx(), collectionsJoin(1, n.accs[1].Address))
	require.NoError(t, err)

	// Validator 0 signs two claims for the same block.
	n.ok(n.tx(0, n.attest(0, 1, userEvm, 5_000_000)))
	lie := n.attest(0, 1, userEvm, 50_000_000)
	res := n.tx(0, lie)
	n.ok(res)
	require.True(t, hasEvent(res, "idlegpu.bridge.v1.EventEquivocationSlashed"))
	require.Equal(t, int64(bondedTokens-slashed), n.tokens(0))
	require.True(t, n.jailed(0))
	info, err := n.app.SlashingKeeper.GetValidatorSigningInfo(n.ctx(), n.consAddr(0))
	require.NoError(t, err)
	require.Equal(t, apptesting.LastBlockTime(n.app).Add(slashingtypes.DefaultDowntimeJailDuration), info.JailedUntil)
	eq, err := n.app.BridgeKeeper.Equivocations.Get(n.ctx(),
		collectionsJoin3(n.accs[0].Address, types.EquivocationDeposit, 1))
	require.NoError(t, err)
	require.Equal(t, "50000000", eq.Claim.Amount.String())
	require.Equal(t, "50000", eq.Slashed.String())
	vote, err := n.app.BridgeKeeper.Votes.Get(n.ctx(), collectionsJoin(1, n.accs[0].Address))
	require.NoError(t, err)
	require.Equal(t, "5000000", vote.Amount.String(), "the second claim does not count")

	// Punished once: a jailed validator attests nothing more.
	n.refused(n.tx(0, lie), types.ErrNotValidator)
	require.Equal(t, int64(bondedTokens-slashed), n.tokens(0))
	for _, i := range []int{1, 2, 3} {
		require.Equal(t, int64(bondedTokens), n.tokens(i), "validator %d", i)
		require.False(t, n.jailed(i))
	}

	// Validator 1 tries to launder its 9,000,000 claim about the canonical
	// block: a vote from another block in between, then the canonical
	// block's true content. The history keeps its first claim from that
	// block, so this is equivocation all the same.
	n.ok(n.tx(1, n.orphaned(1, 1, userEvm, 5_000_000)))
	res = n.tx(1, n.attest(1, 1, userEvm, 5_000_000))
	n.ok(res)
	require.True(t, hasEvent(res, "idlegpu.bridge.v1.EventEquivocationSlashed"))
	require.Equal(t, int64(bondedTokens-slashed), n.tokens(1))
	require.True(t, n.jailed(1))

	// The two left (all the bonded power) credit the canonical claim.
	require.Equal(t, int64(0), n.balance(user.Address))
	n.ok(n.tx(3, n.attest(3, 1, userEvm, 5_000_000)))
	require.Equal(t, int64(5_000_000), n.balance(user.Address))
	require.Equal(t, int64(bondedTokens), n.tokens(2))
	require.Equal(t, int64(bondedTokens), n.tokens(3))

	listed, err := keeperQuerier(n).Equivocations(n.ctx(), &types.QueryEquivocationsRequest{})
	require.NoError(t, err)
	require.Len(t, listed.Equivocations, 2)
	for _, e := range listed.Equivocations {
		require.Equal(t, types.EquivocationDeposit, e.Kind)
		require.Equal(t, "50000", e.Slashed.String())
	}

	gs, err := n.app.BridgeKeeper.ExportGenesis(n.ctx())
	require.NoError(t, err)
	require.NoError(t, gs.Validate())
	require.Len(t, gs.Equivocations, 2)
	require.Len(t, gs.SignerKeys, 4)
	require.NoError(t, n.app.BridgeKeeper.CheckInvariants(n.ctx()))
}

// rootEvidence is key's signature over the vault's root digest of
// (valset, epoch, root, total) for the test chain's vault.
func rootEvidence(t *testing.T, submitter sdk.AccAddress, key *ecdsa.PrivateKey, valset, epoch uint64, root common.Hash, total int64) *types.MsgSubmitRootEvidence {
	d := payout.Domain{VaultID: common.HexToHash(types.DefaultVaultID), ChainID: big.NewInt(1337), Vault: vault}
	digest, err := d.RootDigest(valset, epoch, root, big.NewInt(total))
	require.NoError(t, err)
	sig, err := types.SignDigest(key, digest)
	require.NoError(t, err)
	return &types.MsgSubmitRootEvidence{Submitter: submitter.String(), ValsetNonce: valset, Epoch: epoch,
		Root: root.Hex(), TotalCumulative: math.NewInt(total), Signature: sig}
}

// TestRootEvidenceSlashed: anyone may prove that a validator's EVM key
// signed a payout root the chain did not build for a kept epoch; the
// validator is slashed and jailed once. What the chain cannot prove is
// refused and slashes nothing: its own root, an unknown signer, an epoch
// with no kept root. A replaced key still answers for what it signs.
func TestRootEvidenceSlashed(t *testing.T) {
	n := registeredNetwork(t)
	user := n.accs[4]
	userEvm := common.BytesToAddress(user.Address)
	for i := range 3 {
		n.ok(n.tx(i, n.attest(i, 1, userEvm, 5_000_000)))
	}
	payee := common.HexToAddress("0x00000000000000000000000000000000000000aa")
	n.ok(n.tx(4, &types.MsgWithdrawToEvm{Sender: user.Address.String(), EvmRecipient: payee.Hex(), Amount: sdk.NewInt64Coin("uusdc", 2_000_000)}))
	for n.status().Progress.LastEpoch == 0 {
		apptesting.NextBlock(t, n.app)
	}
	root, err := n.app.BridgeKeeper.Roots.Get(n.ctx(), 1)
	require.NoError(t, err)
	chainRoot := common.HexToHash(root.Root)
	require.Equal(t, "2000000", root.TotalCumulative.String())
	forged := common.HexToHash("0x00000000000000000000000000000000000000000000000000000000f0f0f0f0")
	untouched := func() {
		t.Helper()
		for i := range 4 {
			require.Equal(t, int64(bondedTokens), n.tokens(i), "validator %d", i)
			require.False(t, n.jailed(i), "validator %d", i)
		}
	}

	// The chain's own root, signed by a member: refused.
	n.refused(n.tx(4, rootEvidence(t, user.Address, n.evm[2], root.ValsetNonce, 1, chainRoot, 2_000_000)), types.ErrNotProvable)
	// A key no validator ever registered: refused.
	stranger, err := crypto.GenerateKey()
	require.NoError(t, err)
	n.refused(n.tx(4, rootEvidence(t, user.Address, stranger, root.ValsetNonce, 1, forged, 2_000_000)), types.ErrUnknownEvmSigner)
	// An epoch with no root (not built yet): nothing to compare with.
	n.refused(n.tx(4, rootEvidence(t, user.Address, n.evm[1], root.ValsetNonce, 2, forged, 2_000_000)), types.ErrNotProvable)
	untouched()

	// Validator 1 signed a forged root for epoch 1, sent by an unrelated account.
	ev := rootEvidence(t, user.Address, n.evm[1], root.ValsetNonce, 1, forged, 2_000_000)
	res := n.tx(4, ev)
	n.ok(res)
	require.True(t, hasEvent(res, "idlegpu.bridge.v1.EventEquivocationSlashed"))
	require.Equal(t, int64(bondedTokens-slashed), n.tokens(1))
	require.True(t, n.jailed(1))
	eq, err := n.app.BridgeKeeper.Equivocations.Get(n.ctx(), collectionsJoin3(n.accs[1].Address, types.EquivocationRoot, 1))
	require.NoError(t, err)
	require.Equal(t, user.Address.String(), eq.Submitter)
	require.Equal(t, n.evmAddr(1).Hex(), eq.EvmAddress)
	// The same evidence again, or another forgery for the same epoch: once.
	n.refused(n.tx(4, ev), types.ErrAlreadyPunished)
	n.refused(n.tx(4, rootEvidence(t, user.Address, n.evm[1], root.ValsetNonce, 1, chainRoot, 1)), types.ErrAlreadyPunished)
	require.Equal(t, int64(bondedTokens-slashed), n.tokens(1))

	// Validator 3 replaces its key; what the old key signs is still its own.
	newKey, err := crypto.GenerateKey()
	require.NoError(t, err)
	orch := n.accs[3].Address.String()
	newAddr := crypto.PubkeyToAddress(newKey.PublicKey)
	proof, err := types.SignDigest(newKey, types.SignerProofDigest(apptesting.ChainID, n.valoper(3), orch, newAddr))
	require.NoError(t, err)
	n.ok(n.tx(3, &types.MsgRegisterEvmSigner{Operator: orch, Orchestrator: orch, EvmAddress: newAddr.Hex(), Proof: proof}))
	// Nor may another validator take the old key over.
	taken := n.register(0)
	taken.EvmAddress = n.evmAddr(3).Hex()
	taken.Proof, err = types.SignDigest(n.evm[3], types.SignerProofDigest(apptesting.ChainID, n.valoper(0), taken.Orchestrator, n.evmAddr(3)))
	require.NoError(t, err)
	n.refused(n.tx(0, taken), types.ErrSignerTaken)
	// A forged total under another valset nonce is still not the chain's root.
	n.ok(n.tx(4, rootEvidence(t, user.Address, n.evm[3], root.ValsetNonce+1, 1, chainRoot, 2_000_000)))
	require.Equal(t, int64(bondedTokens-slashed), n.tokens(3))
	require.True(t, n.jailed(3))
	require.Equal(t, int64(bondedTokens), n.tokens(0))
	require.Equal(t, int64(bondedTokens), n.tokens(2))

	gs, err := n.app.BridgeKeeper.ExportGenesis(n.ctx())
	require.NoError(t, err)
	require.NoError(t, gs.Validate())
	require.Len(t, gs.Equivocations, 2)
	require.Len(t, gs.SignerKeys, 5, "four first keys and validator 3's new one")
}

// valsetEvidence is key's signature over the vault's checkpoint of v for
// the test chain's vault.
func valsetEvidence(t *testing.T, submitter sdk.AccAddress, key *ecdsa.PrivateKey, v payout.Valset) *types.MsgSubmitValsetEvidence {
	d := payout.Domain{VaultID: common.HexToHash(types.DefaultVaultID), ChainID: big.NewInt(1337), Vault: vault}
	sig, err := types.SignDigest(key, d.ValsetCheckpoint(v))
	require.NoError(t, err)
	m := &types.MsgSubmitValsetEvidence{Submitter: submitter.String(), Nonce: v.Nonce, Powers: v.Powers, Signature: sig}
	for _, a := range v.Validators {
		m.Validators = append(m.Validators, a.Hex())
	}
	return m
}

// TestValsetEvidenceSlashed: a validator's signature over a checkpoint of
// another set for a valset nonce the chain made is slashed and jailed once;
// the chain's own set, a nonce not made and an unknown signer are refused.
func TestValsetEvidenceSlashed(t *testing.T) {
	n := registeredNetwork(t)
	user := n.accs[4]
	vs, err := n.app.BridgeKeeper.Valsets.Get(n.ctx(), 2)
	require.NoError(t, err)
	own, err := vs.VaultValset()
	require.NoError(t, err)
	stranger, err := crypto.GenerateKey()
	require.NoError(t, err)
	// The set an attacker wants the vault to rotate to: its own key at all
	// the power.
	forged := payout.Valset{Nonce: 2, Validators: []common.Address{crypto.PubkeyToAddress(stranger.PublicKey)}, Powers: []uint64{1 << 32}}

	n.refused(n.tx(4, valsetEvidence(t, user.Address, n.evm[0], own)), types.ErrNotProvable)
	notMade := forged
	notMade.Nonce = 3
	n.refused(n.tx(4, valsetEvidence(t, user.Address, n.evm[0], notMade)), types.ErrNotProvable)
	n.refused(n.tx(4, valsetEvidence(t, user.Address, stranger, forged)), types.ErrUnknownEvmSigner)
	for i := range 4 {
		require.Equal(t, int64(bondedTokens), n.tokens(i))
	}

	ev := valsetEvidence(t, user.Address, n.evm[0], forged)
	res := n.tx(4, ev)
	n.ok(res)
	require.True(t, hasEvent(res, "idlegpu.bridge.v1.EventEquivocationSlashed"))
	require.Equal(t, int64(bondedTokens-slashed), n.tokens(0))
	require.True(t, n.jailed(0))
	n.refused(n.tx(4, ev), types.ErrAlreadyPunished)
	require.Equal(t, int64(bondedTokens-slashed), n.tokens(0))
	for _, i := range []int{1, 2, 3} {
		require.Equal(t, int64(bondedTokens), n.tokens(i))
		require.False(t, n.jailed(i))
	}
	_, err = n.app.BridgeKeeper.Equivocations.Get(n.ctx(), collectionsJoin3(n.accs[0].Address, types.EquivocationValset, 2))
	require.NoError(t, err)
}

// TestFlipBackIsNotEquivocation: a reorg back to a block a validator
// already voted from brings back the very claim it made from it; that
// replaces its vote again and is never punished (the history holds claims,
// not the order of votes). The standing claim again is refused as attested.
func TestFlipBackIsNotEquivocation(t *testing.T) {
	n := registeredNetwork(t)
	userEvm := common.BytesToAddress(n.accs[4].Address)
	canonical := n.attest(0, 1, userEvm, 5_000_000)
	n.ok(n.tx(0, canonical))
	n.ok(n.tx(0, n.orphaned(0, 1, userEvm, 5_000_000)))
	res := n.tx(0, n.attest(0, 1, userEvm, 5_000_000))
	n.ok(res)
	require.True(t, hasEvent(res, "idlegpu.bridge.v1.EventAttestationSuperseded"))
	require.False(t, hasEvent(res, "idlegpu.bridge.v1.EventEquivocationSlashed"))
	require.Equal(t, int64(bondedTokens), n.tokens(0))
	require.False(t, n.jailed(0))
	vote, err := n.app.BridgeKeeper.Votes.Get(n.ctx(), collectionsJoin(1, n.accs[0].Address))
	require.NoError(t, err)
	require.Equal(t, canonical.EvmBlockHash, vote.EvmBlockHash)
	n.refused(n.tx(0, n.attest(0, 1, userEvm, 5_000_000)), types.ErrAlreadyAttested)
}
