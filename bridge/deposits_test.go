package bridge

import (
	"context"
	"crypto/ecdsa"
	"fmt"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient/simulated"
	"github.com/ethereum/go-ethereum/rpc"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/contracts/bindings"
	"github.com/idlegpu/idlegpu/contracts/payout"
)

// These tests run the deposit attester against go-ethereum's simulated
// backend (a real EVM chain that can be forked) and an in-memory idlegpu
// chain (fakeDepositChain) that keeps x/bridge's attestation rules.

const testValidator = "idlegpuvaloper1test"

// simActor is a funded key on the simulated chain.
type simActor struct {
	key  *ecdsa.PrivateKey
	addr common.Address
}

func newSimActor(t *testing.T, seed string) simActor {
	key, err := crypto.ToECDSA(crypto.Keccak256([]byte("idlegpu bridge deposits test " + seed)))
	require.NoError(t, err)
	return simActor{key: key, addr: crypto.PubkeyToAddress(key.PublicKey)}
}

func (a simActor) opts() *bind.TransactOpts {
	return bind.NewKeyedTransactor(a.key, big.NewInt(1337))
}

// simEnv is a simulated EVM chain with the test token and a vault, a
// renter who may deposit, and the attester under test.
type simEnv struct {
	t         *testing.T
	ctx       context.Context
	sim       *simulated.Backend
	client    simulated.Client
	deployer  simActor
	renter    simActor
	token     *bindings.TestUSDC
	tokenC    *bind.BoundContract
	vault     *bindings.SettlementVault
	vaultC    *bind.BoundContract
	vaultAddr common.Address
	chain     *fakeDepositChain
	m         *metrics
	a         *depositAttester
	conf      uint64
}

func newSimEnv(t *testing.T, mode string, confirmations uint64) *simEnv {
	t.Helper()
	e := &simEnv{t: t, ctx: context.Background(), deployer: newSimActor(t, "deployer"), renter: newSimActor(t, "renter"), conf: confirmations}
	eth := new(big.Int).Mul(big.NewInt(1000), big.NewInt(1e18))
	e.sim = simulated.NewBackend(types.GenesisAlloc{e.deployer.addr: {Balance: eth}, e.renter.addr: {Balance: eth}},
		simulated.WithBlockGasLimit(60_000_000))
	t.Cleanup(func() { _ = e.sim.Close() })
	e.client = e.sim.Client()

	e.token = bindings.NewTestUSDC()
	tokenAddr := e.deploy(bindings.TestUSDCMetaData.Bin, nil)
	e.tokenC = e.token.Instance(e.client, tokenAddr)
	signer := newSimActor(t, "validator")
	vs, err := payout.NewValset(1, []payout.Member{{Address: signer.addr, Power: 1}})
	require.NoError(t, err)
	e.vault = bindings.NewSettlementVault()
	e.vaultAddr = e.deploy(bindings.SettlementVaultMetaData.Bin,
		e.vault.PackConstructor(tokenAddr, crypto.Keccak256Hash([]byte("deposits test")), e.deployer.addr, 2, vaultValset(vs)))
	e.vaultC = e.vault.Instance(e.client, e.vaultAddr)
	e.send(e.deployer, e.tokenC, e.token.PackMint(e.renter.addr, big.NewInt(1_000_000)))
	e.send(e.renter, e.tokenC, e.token.PackApprove(e.vaultAddr, big.NewInt(1_000_000)))

	fin, err := newFinality(mode, discardLogger())
	require.NoError(t, err)
	e.chain = newFakeDepositChain(t)
	e.m = newMetrics("test")
	e.a = newDepositAttester(discardLogger(), e.m, e.chain, fin, e.client, e.vaultAddr)
	return e
}

func (e *simEnv) deploy(bin string, input []byte) common.Address {
	e.t.Helper()
	addr, tx, err := bind.DeployContract(e.deployer.opts(), common.FromHex(bin), e.client, input)
	require.NoError(e.t, err)
	e.mined(tx)
	return addr
}

// send mines one transaction in its own block and requires success.
func (e *simEnv) send(from simActor, c *bind.BoundContract, data []byte) *types.Receipt {
	e.t.Helper()
	tx, err := bind.Transact(c, from.opts(), data)
	require.NoError(e.t, err)
	return e.mined(tx)
}

func (e *simEnv) mined(tx *types.Transaction) *types.Receipt {
	e.t.Helper()
	e.sim.Commit()
	rcpt, err := bind.WaitMined(e.ctx, e.client, tx.Hash())
	require.NoError(e.t, err)
	require.Equal(e.t, types.ReceiptStatusSuccessful, rcpt.Status)
	return rcpt
}

// deposit mines the renter's deposit for recipient and returns its tx and
// the vote for its Deposited log.
func (e *simEnv) deposit(amount int64, recipient common.Address) (*types.Transaction, depositVote) {
	e.t.Helper()
	tx, err := bind.Transact(e.vaultC, e.renter.opts(), e.vault.PackDeposit(big.NewInt(amount), recipient))
	require.NoError(e.t, err)
	return tx, e.voteIn(e.mined(tx))
}

// voteIn is the vote for the Deposited log in rcpt.
func (e *simEnv) voteIn(rcpt *types.Receipt) depositVote {
	e.t.Helper()
	for _, l := range rcpt.Logs {
		if d, err := e.vault.UnpackDepositedEvent(l); err == nil {
			return voteOf(d)
		}
	}
	e.t.Fatalf("no Deposited log in tx %s", rcpt.TxHash)
	return depositVote{}
}

// commit mines n empty blocks.
func (e *simEnv) commit(n int) {
	for range n {
		e.sim.Commit()
	}
}

func (e *simEnv) head() uint64 {
	e.t.Helper()
	n, err := e.client.BlockNumber(e.ctx)
	require.NoError(e.t, err)
	return n
}

func (e *simEnv) header(n uint64) *types.Header {
	e.t.Helper()
	h, err := e.client.HeaderByNumber(e.ctx, new(big.Int).SetUint64(n))
	require.NoError(e.t, err)
	return h
}

func (e *simEnv) finalized() uint64 {
	e.t.Helper()
	h, err := e.client.HeaderByNumber(e.ctx, big.NewInt(int64(rpc.FinalizedBlockNumber)))
	require.NoError(e.t, err)
	return h.Number.Uint64()
}

// round is one orchestrator round of the attester, as orchestrate runs it.
func (e *simEnv) round() {
	e.t.Helper()
	require.NoError(e.t, e.a.attest(e.ctx, e.conf, testValidator, e.chain.lastAttested()))
}

// fork makes the chain from block n's parent on canonical again: the
// blocks from n on are orphaned (their transactions go back to the pool).
func (e *simEnv) fork(n uint64) {
	e.t.Helper()
	require.NoError(e.t, e.sim.Fork(e.header(n-1).Hash()))
}

// untilPoolReorged retries send while the transaction pool still has the
// orphaned chain's state (it follows a reorg asynchronously).
func (e *simEnv) untilPoolReorged(send func() error) {
	e.t.Helper()
	var err error
	for range 400 {
		if err = send(); err == nil || !strings.Contains(err.Error(), "nonce too low") {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	require.NoError(e.t, err)
}

// fakeDepositChain keeps x/bridge's attestation rules for one validator:
// nonces in order after the last attested or credited one; a vote for a
// nonce already attested (and not credited) replaces the standing vote only
// when it names another block hash. It fails the test on any second claim
// for one block hash (equivocation, or a pointless resend).
type fakeDepositChain struct {
	t        *testing.T
	credited uint64
	last     uint64
	standing map[uint64]depositVote
	sent     []depositVote
	byHash   map[common.Hash]depositVote
}

func newFakeDepositChain(t *testing.T) *fakeDepositChain {
	return &fakeDepositChain{t: t, standing: map[uint64]depositVote{}, byHash: map[common.Hash]depositVote{}}
}

func (c *fakeDepositChain) lastAttested() uint64 { return max(c.last, c.credited) }

func (c *fakeDepositChain) Votes(_ context.Context, validator string) ([]depositVote, error) {
	require.Equal(c.t, testValidator, validator)
	var out []depositVote
	for n := c.credited + 1; n <= c.last; n++ {
		if v, ok := c.standing[n]; ok {
			out = append(out, v)
		}
	}
	return out, nil
}

func (c *fakeDepositChain) DepositBlock(_ context.Context, nonce uint64) (uint64, bool, error) {
	v, ok := c.standing[nonce]
	return v.BlockNumber, ok, nil
}

func (c *fakeDepositChain) Attest(_ context.Context, votes []depositVote) (string, error) {
	for _, v := range votes {
		// x/bridge's rule: a claim from a block already voted from must be
		// the same claim, else it is equivocation.
		if prev, ok := c.byHash[v.BlockHash]; ok && prev.Nonce == v.Nonce && !prev.sameVote(v) {
			c.t.Errorf("a different claim for nonce %d in block %s (first %+v, now %+v)", v.Nonce, v.BlockHash, prev, v)
		}
		switch {
		case v.Nonce == c.lastAttested()+1:
			c.last = v.Nonce
		case v.Nonce > c.credited && v.Nonce <= c.last:
			if c.standing[v.Nonce].sameVote(v) {
				return "", fmt.Errorf("nonce %d: already attested in block %s", v.Nonce, v.BlockHash)
			}
		default:
			return "", fmt.Errorf("nonce %d out of order (last %d, credited %d)", v.Nonce, c.last, c.credited)
		}
		c.standing[v.Nonce] = v
		c.byHash[v.BlockHash] = v
		c.sent = append(c.sent, v)
	}
	return fmt.Sprintf("tx%d", len(c.sent)), nil
}

// TestDepositsSupersedeOrphanedVote: the orchestrator attests deposit 1
// at head − 2; a reorg from the deposit's parent puts deposit 1 in another
// block (the same transaction, or a replacement paying another recipient).
// The attester sees its vote orphaned, waits until the new block is
// attestable, then sends exactly one superseding vote naming the canonical
// block and content, never a second claim for either block hash, and goes
// on with deposit 2 in the new chain.
func TestDepositsSupersedeOrphanedVote(t *testing.T) {
	for _, tc := range []struct {
		name       string
		newContent bool
	}{
		{"same deposit in a new block", false},
		{"replaced by a deposit to another recipient", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newSimEnv(t, finalityDepth, 2)
			first := newSimActor(t, "first recipient").addr
			tx, v1 := e.deposit(100, first)
			e.commit(2)
			e.round()
			require.Equal(t, []depositVote{v1}, e.chain.sent)

			// Reorg: block v1.BlockNumber and the two above it are orphaned;
			// for now the head is below the vote's block.
			e.fork(v1.BlockNumber)
			e.round()
			require.Len(t, e.chain.sent, 1)
			var canon *types.Transaction
			if tc.newContent {
				// The renter's same account nonce, a higher tip, another recipient:
				// it wins over the old transaction the pool takes back.
				opts := e.renter.opts()
				opts.Nonce = new(big.Int).SetUint64(tx.Nonce())
				opts.GasTipCap = new(big.Int).Mul(tx.GasTipCap(), big.NewInt(3))
				opts.GasFeeCap = new(big.Int).Mul(tx.GasFeeCap(), big.NewInt(3))
				opts.GasLimit = tx.Gas()
				e.untilPoolReorged(func() (err error) {
					canon, err = bind.Transact(e.vaultC, opts, e.vault.PackDeposit(big.NewInt(100), newSimActor(t, "second recipient").addr))
					return err
				})
			} else {
				canon = tx
				e.untilPoolReorged(func() error {
					if err := e.client.SendTransaction(e.ctx, tx); err != nil && !strings.Contains(err.Error(), "already known") {
						return err
					}
					return nil
				})
			}
			v1b := e.voteIn(e.mined(canon))
			require.Equal(t, v1.BlockNumber, v1b.BlockNumber, "deposit 1 is again in the fork's first block")
			require.NotEqual(t, v1.BlockHash, v1b.BlockHash)
			require.Equal(t, tc.newContent, !v1b.sameContent(v1))

			// Orphaned, but its new block is not attestable yet: wait.
			e.round()
			require.Len(t, e.chain.sent, 1)
			e.commit(2)
			e.round()
			require.Equal(t, []depositVote{v1, v1b}, e.chain.sent, "exactly one superseding vote, for the canonical block")
			require.Equal(t, v1b, e.chain.standing[1])
			require.InDelta(t, 1, metricValue(t, e.m.Superseded), 0)
			e.round()
			require.Len(t, e.chain.sent, 2, "nothing more once the vote is canonical")

			_, v2 := e.deposit(50, first)
			e.commit(2)
			e.round()
			require.Equal(t, []depositVote{v1, v1b, v2}, e.chain.sent)
			require.InDelta(t, 1, metricValue(t, e.m.Superseded), 0)
		})
	}
}

// TestDepositsCursorFollowsReorg: after the attester has searched past a
// block, a reorg puts the next deposit below its cursor. It notices the
// searched block is no longer canonical, searches again from its last
// canonical vote and attests the deposit where it now is.
func TestDepositsCursorFollowsReorg(t *testing.T) {
	e := newSimEnv(t, finalityDepth, 2)
	rcpt := newSimActor(t, "recipient").addr
	_, v1 := e.deposit(100, rcpt)
	e.commit(2)
	e.round()
	e.commit(5)
	e.round()
	require.Greater(t, e.a.scanFrom, v1.BlockNumber+4, "the cursor moved past the empty blocks")

	e.fork(v1.BlockNumber + 1)
	_, v2 := e.deposit(50, rcpt)
	require.Equal(t, v1.BlockNumber+1, v2.BlockNumber)
	require.Less(t, v2.BlockNumber, e.a.scanFrom, "deposit 2 is below the old cursor")
	e.commit(8)
	e.round()
	require.Equal(t, []depositVote{v1, v2}, e.chain.sent)
	require.Zero(t, metricValue(t, e.m.Superseded), "deposit 1's block was never orphaned")
}

// TestDepositsOnlyFinalized: the simulated backend (like geth --dev)
// finalizes every 32nd block. With the finalized block available (mode
// finalized, or auto), nothing above it is attested however deep it is.
func TestDepositsOnlyFinalized(t *testing.T) {
	for _, mode := range []string{finalityFinalized, finalityAuto} {
		t.Run(mode, func(t *testing.T) {
			e := newSimEnv(t, mode, 2)
			rcpt := newSimActor(t, "recipient").addr
			_, v1 := e.deposit(100, rcpt)
			require.Less(t, v1.BlockNumber, uint64(32))
			check := func() {
				t.Helper()
				fin := e.finalized()
				e.round()
				for _, v := range e.chain.sent {
					require.LessOrEqual(t, v.BlockNumber, fin, "vote %d above finalized", v.Nonce)
				}
				require.InDelta(t, float64(fin), metricValue(t, e.m.Attestable.WithLabelValues(finalityFinalized)), 0)
			}
			for e.head() < 31 {
				e.commit(1)
				check()
			}
			require.Empty(t, e.chain.sent, "deposit 1 is %d blocks deep but not finalized", e.head()-v1.BlockNumber)
			e.commit(1) // block 32: finalized
			require.EqualValues(t, 32, e.finalized())
			check()
			require.Equal(t, []depositVote{v1}, e.chain.sent)

			_, v2 := e.deposit(50, rcpt)
			for e.head() < 63 {
				e.commit(1)
				check()
			}
			require.Len(t, e.chain.sent, 1)
			e.commit(1)
			check()
			require.Equal(t, []depositVote{v1, v2}, e.chain.sent)
		})
	}
}

// TestFinalityBound: depth mode ignores the finalized block; the bound is
// head − confirmations and nothing before the chain is that long.
func TestFinalityBound(t *testing.T) {
	e := newSimEnv(t, finalityDepth, 3)
	f, err := newFinality(finalityDepth, discardLogger())
	require.NoError(t, err)
	b, err := f.bound(e.ctx, e.client, 2, 3)
	require.NoError(t, err)
	require.Nil(t, b)
	head := e.head()
	b, err = f.bound(e.ctx, e.client, head, 3)
	require.NoError(t, err)
	require.Equal(t, &attestable{blockRef{head - 3, e.header(head - 3).Hash()}, finalityDepth}, b)

	_, err = newFinality("latest", discardLogger())
	require.ErrorContains(t, err, "auto, finalized or depth")
}

// metricValue reads a counter's or gauge's value.
func metricValue(t *testing.T, c prometheus.Metric) float64 {
	t.Helper()
	var m dto.Metric
	require.NoError(t, c.Write(&m))
	if m.Counter != nil {
		return m.Counter.GetValue()
	}
	return m.Gauge.GetValue()
}

// TestDepositsNoSecondVoteForABlock: a reorg back to the block of a vote
// the attester already superseded makes it vote that very claim again
// (never another claim for that block hash), and a standing vote that
// differs from the log in its own block is never "corrected" (that would be
// a second, different claim for one block: equivocation).
func TestDepositsNoSecondVoteForABlock(t *testing.T) {
	t.Run("back to a block already voted for", func(t *testing.T) {
		e := newSimEnv(t, finalityDepth, 2)
		tx, v1 := e.deposit(100, newSimActor(t, "recipient").addr)
		e.commit(2)
		e.round()
		orphanedTip := e.header(e.head()).Hash()

		e.fork(v1.BlockNumber)
		e.untilPoolReorged(func() error {
			if err := e.client.SendTransaction(e.ctx, tx); err != nil && !strings.Contains(err.Error(), "already known") {
				return err
			}
			return nil
		})
		v1b := e.voteIn(e.mined(tx))
		e.commit(2)
		e.round()
		require.Equal(t, []depositVote{v1, v1b}, e.chain.sent)

		// The first chain comes back, longer: the vote returns to v1, the
		// very claim sent for that block before (which the chain takes back),
		// once and only once.
		require.NoError(t, e.sim.Fork(orphanedTip))
		e.commit(3)
		require.Equal(t, v1.BlockHash, e.header(v1.BlockNumber).Hash())
		e.round()
		e.round()
		require.Equal(t, []depositVote{v1, v1b, v1}, e.chain.sent)
		require.Equal(t, v1, e.chain.standing[1])
	})
	t.Run("standing vote differs from its own block", func(t *testing.T) {
		e := newSimEnv(t, finalityDepth, 2)
		_, v1 := e.deposit(100, newSimActor(t, "recipient").addr)
		e.commit(2)
		wrong := v1
		wrong.Recipient = newSimActor(t, "someone else").addr
		e.chain.last, e.chain.standing[1] = 1, wrong
		err := e.a.attest(e.ctx, e.conf, testValidator, e.chain.lastAttested())
		require.ErrorContains(t, err, "differs from the log in its own block")
		require.Empty(t, e.chain.sent)
	})
}

// TestDepositVoteRoundTrip: a vote read back from the chain's record of the
// message it was sent as is the same vote, so a canonical vote is never
// taken for an orphan.
func TestDepositVoteRoundTrip(t *testing.T) {
	v := depositVote{
		Nonce: 7, Sender: common.HexToAddress("0x00000000000000000000000000000000000000aB"),
		Recipient: common.HexToAddress("0xCd00000000000000000000000000000000000001"), Amount: big.NewInt(25_000_000),
		BlockNumber: 42, BlockHash: common.HexToHash("0xAB01"), TxHash: common.HexToHash("0xCD02"),
	}
	claim, err := v.msg("idle1orchestrator").Claim()
	require.NoError(t, err)
	got, err := voteFromClaim(claim)
	require.NoError(t, err)
	require.Equal(t, v, got)
	require.True(t, got.sameLog(v))
}
