package bindings_test

import (
	"fmt"
	"math/big"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/contracts/bindings"
	"github.com/idlegpu/idlegpu/contracts/payout"
)

const (
	// starveDelay is the vault's timelock in the starvation test.
	starveDelay = 6 * time.Second
	// starveEpoch is the payout epoch the test allows on top of the
	// timelock: two blocks of geth --dev, the cadence of a chain that
	// builds a root every epoch with a 1-uusdc withdrawal in it.
	starveEpoch = 2 * time.Second
)

// TestGethDevRootStarvation is the attack on proposeRoot, on a real geth
// --dev node: the honest relayer proposes epoch 1's root, then an attacker
// proposes a new root in every block (each validly signed by the
// validators, each a later epoch with one more unit in its total, as the
// appchain signs after a 1-uusdc withdrawal each epoch). Epoch 1's root
// must still be accepted within the timelock plus one epoch of its
// proposal. (Against a vault where each proposal replaces the pending
// root and restarts the timelock, it is never accepted: the test fails.)
func TestGethDevRootStarvation(t *testing.T) {
	g := newGethEnv(t)
	client, ctx := g.client, g.ctx
	deployer, relayer, attacker, renter := g.actor("deployer"), g.actor("relayer"), g.actor("attacker"), g.actor("renter")
	p0 := g.actor("provider 0")
	g.fund(deployer, relayer, attacker, renter)

	token := bindings.NewTestUSDC()
	tokenAddr := g.deploy(deployer, bindings.TestUSDCMetaData.Bin, nil)
	tokenC := token.Instance(client, tokenAddr)
	valKeys, valset := validatorKeys(t, "geth starvation", 4, 1)
	vault := bindings.NewSettlementVault()
	vaultID := crypto.Keccak256Hash([]byte("idlegpu vault geth starvation test"))
	guardian := g.actor("guardian")
	vaultAddr := g.deploy(deployer, bindings.SettlementVaultMetaData.Bin,
		vault.PackConstructor(tokenAddr, vaultID, guardian.addr, uint64(starveDelay/time.Second), toValset(valset)))
	vaultC := vault.Instance(client, vaultAddr)
	domain := payout.Domain{VaultID: vaultID, ChainID: g.chain, Vault: vaultAddr}
	g.send(deployer, tokenC, token.PackMint(renter.addr, usdc(1000)))
	g.send(renter, tokenC, token.PackApprove(vaultAddr, usdc(1000)))
	g.send(renter, vaultC, vault.PackDeposit(usdc(1000), renter.addr))

	// propose is a root for epoch as the appchain signs it: p0 is owed 100
	// tokens, and each later epoch 1 unit more went to the attacker.
	propose := func(epoch uint64) ([]byte, *payout.Tree) {
		entries := []payout.Entry{entry(p0.addr, usdc(100))}
		if epoch > 1 {
			entries = append(entries, entry(attacker.addr, new(big.Int).SetUint64(epoch-1)))
		}
		tr, err := payout.NewTree(entries)
		if err != nil {
			panic(err)
		}
		digest, err := domain.RootDigest(valset.Nonce, epoch, tr.Root(), tr.Total())
		if err != nil {
			panic(err)
		}
		sigs, err := valset.Sign(digest, valKeys[0], valKeys[1], valKeys[2])
		if err != nil {
			panic(err)
		}
		return vault.PackProposeRoot(toValset(valset), toSigs(sigs), epoch, tr.Root(), tr.Total()), tr
	}

	// The honest relayer proposes epoch 1.
	data, first := propose(1)
	rcpt := g.send(relayer, vaultC, data)
	proposed, err := vault.UnpackRootProposedEvent(rcpt.Logs[len(rcpt.Logs)-1])
	require.NoError(t, err)
	propHead, err := client.HeaderByNumber(ctx, rcpt.BlockNumber)
	require.NoError(t, err)
	require.Equal(t, propHead.Time+uint64(starveDelay/time.Second), proposed.AcceptableAt)
	deadline := propHead.Time + uint64((starveDelay+starveEpoch)/time.Second)

	// The attacker: a new root in every block until told to stop.
	stop := make(chan struct{})
	attackDone := make(chan error, 1)
	var attacks atomic.Int64
	go func() {
		attackDone <- func() error {
			for epoch := uint64(2); ; epoch++ {
				select {
				case <-stop:
					return nil
				default:
				}
				data, _ := propose(epoch)
				tx, err := bind.Transact(vaultC, attacker.opts, data)
				if err != nil {
					return fmt.Errorf("attacker's proposal %d: %w", epoch, err)
				}
				r, err := bind.WaitMined(ctx, client, tx.Hash())
				if err != nil {
					return err
				}
				if r.Status != types.ReceiptStatusSuccessful {
					return fmt.Errorf("attacker's proposal %d reverted", epoch)
				}
				attacks.Add(1)
			}
		}()
	}()
	stopAttack := sync.OnceValue(func() error {
		close(stop)
		return <-attackDone
	})
	t.Cleanup(func() { _ = stopAttack() })

	// The honest relayer accepts epoch 1 once the head's time reaches its
	// acceptableAt, retrying each block until the deadline passes.
	var accepted *types.Receipt
	for accepted == nil {
		head, err := client.HeaderByNumber(ctx, nil)
		require.NoError(t, err)
		require.LessOrEqual(t, head.Time, deadline,
			"epoch 1's root was not accepted within the %s timelock plus a %s epoch of its proposal (at %d): starved by %d later proposals",
			starveDelay, starveEpoch, propHead.Time, attacks.Load())
		if head.Time >= proposed.AcceptableAt {
			if tx, err := bind.Transact(vaultC, relayer.opts, vault.PackAcceptRoot(1)); err == nil {
				r, err := bind.WaitMined(ctx, client, tx.Hash())
				require.NoError(t, err)
				if r.Status == types.ReceiptStatusSuccessful {
					accepted = r
					break
				}
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	require.NoError(t, stopAttack())
	accHead, err := client.HeaderByNumber(ctx, accepted.BlockNumber)
	require.NoError(t, err)
	require.LessOrEqual(t, accHead.Time, deadline)
	acc, err := vault.UnpackRootAcceptedEvent(accepted.Logs[0])
	require.NoError(t, err)
	require.Equal(t, uint64(1), acc.Epoch)
	require.Equal(t, [32]byte(first.Root()), acc.Root)
	require.Equal(t, usdc(100), acc.TotalCumulative)
	last, err := bind.Call(vaultC, &bind.CallOpts{Context: ctx}, vault.PackLastProposedEpoch(), vault.UnpackLastProposedEpoch)
	require.NoError(t, err)
	require.Equal(t, uint64(attacks.Load()+1), last)
	require.GreaterOrEqual(t, attacks.Load(), int64(starveDelay/time.Second)-2, "the attacker proposed in (nearly) every block while root 1 waited")
	t.Logf("epoch 1 proposed at %d, acceptable at %d, accepted in block time %d; the attacker proposed %d roots",
		propHead.Time, proposed.AcceptableAt, accHead.Time, attacks.Load())

	// p0 is paid under epoch 1.
	cum, proof, err := first.Proof(p0.addr)
	require.NoError(t, err)
	g.send(relayer, vaultC, vault.PackClaim(p0.addr, cum, toProof(proof)))
	b, err := bind.Call(tokenC, &bind.CallOpts{Context: ctx}, token.PackBalanceOf(p0.addr), token.UnpackBalanceOf)
	require.NoError(t, err)
	require.Equal(t, usdc(100), b)
}
