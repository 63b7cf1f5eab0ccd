package bindings_test

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/eth/ethconfig"
	"github.com/ethereum/go-ethereum/ethclient/simulated"
	"github.com/ethereum/go-ethereum/node"
	"github.com/ethereum/go-ethereum/rpc"
	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/contracts/bindings"
	"github.com/idlegpu/idlegpu/contracts/payout"
)

// rootDelay is the vault's timelock in these tests.
const rootDelay = time.Hour

// usdc is n whole tokens of the 6-decimal test token.
func usdc(n int64) *big.Int { return new(big.Int).Mul(big.NewInt(n), big.NewInt(1_000_000)) }

// actor is a funded account on the simulated chain.
type actor struct {
	key  *ecdsa.PrivateKey
	addr common.Address
	opts *bind.TransactOpts
}

// env is one simulated chain with the test token and a vault deployed, a
// guardian, renters, providers and the validators' keys.
type env struct {
	t      *testing.T
	ctx    context.Context
	sim    *simulated.Backend
	client simulated.Client

	deployer, guardian, relayer actor
	renters, providers          []actor

	valKeys []*ecdsa.PrivateKey // indexed like valset.Validators
	valset  payout.Valset
	domain  payout.Domain

	token     *bindings.TestUSDC
	tokenC    *bind.BoundContract
	vault     *bindings.SettlementVault
	vaultC    *bind.BoundContract
	vaultAddr common.Address
	tokenAddr common.Address
}

var simChainID = big.NewInt(1337) // the simulated backend's chain id

// osakaRules runs the simulated chain on the rules of Ethereum's Osaka
// upgrade, what the chains the vault targets run, rather than on the
// development config's unscheduled forks, whose storage gas schedule
// differs; the gas figures in contracts/README.md are under these rules.
func osakaRules(_ *node.Config, ethConf *ethconfig.Config) {
	cfg := *ethConf.Genesis.Config
	cfg.AmsterdamTime, cfg.BogotaTime = nil, nil
	ethConf.Genesis.Config = &cfg
}

func newActor(t testing.TB, seed string) actor {
	key, err := crypto.ToECDSA(crypto.Keccak256([]byte("idlegpu vault test actor " + seed)))
	require.NoError(t, err)
	opts := bind.NewKeyedTransactor(key, simChainID)
	return actor{key: key, addr: opts.From, opts: opts}
}

// validatorKeys returns n throwaway keys and the equal-power valset of
// their addresses (nonce given), with the keys reordered to match the set.
func validatorKeys(t testing.TB, tag string, n int, nonce uint64) ([]*ecdsa.PrivateKey, payout.Valset) {
	t.Helper()
	var members []payout.Member
	byAddr := map[common.Address]*ecdsa.PrivateKey{}
	for i := range n {
		key, err := crypto.ToECDSA(crypto.Keccak256([]byte(fmt.Sprintf("idlegpu vault test validator %s %d", tag, i))))
		require.NoError(t, err)
		addr := crypto.PubkeyToAddress(key.PublicKey)
		byAddr[addr] = key
		members = append(members, payout.Member{Address: addr, Power: 100})
	}
	vs, err := payout.NewValset(nonce, members)
	require.NoError(t, err)
	keys := make([]*ecdsa.PrivateKey, len(vs.Validators))
	for i, a := range vs.Validators {
		keys[i] = byAddr[a]
	}
	return keys, vs
}

// newEnv deploys the token and a vault whose first set is nValidators
// equal validators, and mints each renter 1,000 tokens.
func newEnv(t *testing.T, nValidators int) *env {
	t.Helper()
	e := &env{t: t, ctx: context.Background()}
	e.deployer, e.guardian, e.relayer = newActor(t, "deployer"), newActor(t, "guardian"), newActor(t, "relayer")
	for i := range 3 {
		e.renters = append(e.renters, newActor(t, fmt.Sprint("renter ", i)))
		e.providers = append(e.providers, newActor(t, fmt.Sprint("provider ", i)))
	}
	alloc := types.GenesisAlloc{}
	eth := new(big.Int).Mul(big.NewInt(1000), big.NewInt(1e18))
	for _, a := range append(append([]actor{e.deployer, e.guardian, e.relayer}, e.renters...), e.providers...) {
		alloc[a.addr] = types.Account{Balance: eth}
	}
	e.sim = simulated.NewBackend(alloc, simulated.WithBlockGasLimit(60_000_000), osakaRules)
	t.Cleanup(func() { _ = e.sim.Close() })
	e.client = e.sim.Client()

	e.token = bindings.NewTestUSDC()
	e.tokenAddr = e.deploy(bindings.TestUSDCMetaData.Bin, nil)
	e.tokenC = e.token.Instance(e.client, e.tokenAddr)

	e.valKeys, e.valset = validatorKeys(t, "genesis", nValidators, 1)
	e.vault = bindings.NewSettlementVault()
	vaultID := crypto.Keccak256Hash([]byte("idlegpu vault test"))
	e.vaultAddr = e.deploy(bindings.SettlementVaultMetaData.Bin,
		e.vault.PackConstructor(e.tokenAddr, vaultID, e.guardian.addr, uint64(rootDelay/time.Second), toValset(e.valset)))
	e.vaultC = e.vault.Instance(e.client, e.vaultAddr)
	e.domain = payout.Domain{VaultID: vaultID, ChainID: simChainID, Vault: e.vaultAddr}

	for _, r := range e.renters {
		e.send(e.deployer, e.tokenC, e.token.PackMint(r.addr, usdc(1000)))
	}
	return e
}

func (e *env) deploy(bin string, input []byte) common.Address {
	e.t.Helper()
	addr, tx, err := bind.DeployContract(e.deployer.opts, common.FromHex(bin), e.client, input)
	require.NoError(e.t, err)
	e.sim.Commit()
	rcpt, err := bind.WaitMined(e.ctx, e.client, tx.Hash())
	require.NoError(e.t, err)
	require.Equal(e.t, types.ReceiptStatusSuccessful, rcpt.Status)
	return addr
}

// send mines one transaction and requires it to succeed.
func (e *env) send(from actor, c *bind.BoundContract, data []byte) *types.Receipt {
	e.t.Helper()
	tx, err := bind.Transact(c, from.opts, data)
	require.NoError(e.t, err)
	e.sim.Commit()
	rcpt, err := bind.WaitMined(e.ctx, e.client, tx.Hash())
	require.NoError(e.t, err)
	require.Equal(e.t, types.ReceiptStatusSuccessful, rcpt.Status)
	return rcpt
}

// revertData sends a transaction that must revert and returns its revert
// data (the simulated node refuses it at gas estimation and says why).
func (e *env) revertData(from actor, c *bind.BoundContract, data []byte) []byte {
	e.t.Helper()
	_, err := bind.Transact(c, from.opts, data)
	require.Error(e.t, err, "the transaction should revert")
	return revertDataOf(e.t, err)
}

// revertDataOf extracts the revert data from a node's refusal.
func revertDataOf(t testing.TB, err error) []byte {
	t.Helper()
	var de rpc.DataError
	require.True(t, errors.As(err, &de), "no revert data in %v", err)
	s, ok := de.ErrorData().(string)
	require.True(t, ok, "revert data %v", de.ErrorData())
	raw, derr := hexutil.Decode(s)
	require.NoError(t, derr)
	require.GreaterOrEqual(t, len(raw), 4, "revert without a custom error: %v", err)
	return raw
}

// expectVaultError sends a transaction to the vault that must revert with
// exactly want (a *bindings.SettlementVault<Error>, arguments included).
func (e *env) expectVaultError(from actor, data []byte, want any) {
	e.t.Helper()
	raw := e.revertData(from, e.vaultC, data)
	got, err := e.vault.UnpackError(raw)
	require.NoError(e.t, err, "revert data 0x%x is not a vault error", raw)
	requireSameError(e.t, want, got)
}

// requireSameError compares two decoded custom errors by type and printed
// arguments (a decoded zero *big.Int and big.NewInt(0) differ in form only).
func requireSameError(t testing.TB, want, got any) {
	t.Helper()
	require.Equal(t, fmt.Sprintf("%T%+v", want, want), fmt.Sprintf("%T%+v", got, got))
}

func (e *env) balance(addr common.Address) *big.Int {
	e.t.Helper()
	b, err := bind.Call(e.tokenC, nil, e.token.PackBalanceOf(addr), e.token.UnpackBalanceOf)
	require.NoError(e.t, err)
	return b
}

func (e *env) view(data []byte) []byte {
	e.t.Helper()
	out, err := e.vaultC.CallRaw(nil, data)
	require.NoError(e.t, err)
	return out
}

func (e *env) totalDeposited() *big.Int {
	v, err := e.vault.UnpackTotalDeposited(e.view(e.vault.PackTotalDeposited()))
	require.NoError(e.t, err)
	return v
}

func (e *env) totalClaimed() *big.Int {
	v, err := e.vault.UnpackTotalClaimed(e.view(e.vault.PackTotalClaimed()))
	require.NoError(e.t, err)
	return v
}

func (e *env) claimed(addr common.Address) *big.Int {
	v, err := e.vault.UnpackClaimed(e.view(e.vault.PackClaimed(addr)))
	require.NoError(e.t, err)
	return v
}

func (e *env) accepted() bindings.AcceptedRootOutput {
	v, err := e.vault.UnpackAcceptedRoot(e.view(e.vault.PackAcceptedRoot()))
	require.NoError(e.t, err)
	return v
}

func (e *env) pending(epoch uint64) bindings.PendingRootsOutput {
	v, err := e.vault.UnpackPendingRoots(e.view(e.vault.PackPendingRoots(epoch)))
	require.NoError(e.t, err)
	return v
}

// deposit approves and deposits amount from r for recipient.
func (e *env) deposit(r actor, amount *big.Int, recipient common.Address) *types.Receipt {
	e.t.Helper()
	e.send(r, e.tokenC, e.token.PackApprove(e.vaultAddr, amount))
	return e.send(r, e.vaultC, e.vault.PackDeposit(amount, recipient))
}

// sign has the given validators (indexes into e.valKeys) sign digest.
func (e *env) sign(digest common.Hash, who ...int) []bindings.SettlementVaultSignature {
	e.t.Helper()
	return signWith(e.t, e.valset, e.valKeys, digest, who...)
}

func signWith(t testing.TB, vs payout.Valset, keys []*ecdsa.PrivateKey, digest common.Hash, who ...int) []bindings.SettlementVaultSignature {
	t.Helper()
	var ks []*ecdsa.PrivateKey
	for _, i := range who {
		ks = append(ks, keys[i])
	}
	sigs, err := vs.Sign(digest, ks...)
	require.NoError(t, err)
	return toSigs(sigs)
}

func (e *env) rootDigest(epoch uint64, root common.Hash, total *big.Int) common.Hash {
	e.t.Helper()
	d, err := e.domain.RootDigest(e.valset.Nonce, epoch, root, total)
	require.NoError(e.t, err)
	return d
}

// proposeTree has validators who (default: all) propose tree for epoch with
// the tree's total as totalCumulative.
func (e *env) proposeTree(epoch uint64, tree *payout.Tree, who ...int) *types.Receipt {
	e.t.Helper()
	if len(who) == 0 {
		for i := range e.valKeys {
			who = append(who, i)
		}
	}
	total := tree.Total()
	sigs := e.sign(e.rootDigest(epoch, tree.Root(), total), who...)
	return e.send(e.relayer, e.vaultC, e.vault.PackProposeRoot(toValset(e.valset), sigs, epoch, tree.Root(), total))
}

// wait moves the chain's clock forward by d (the next block's timestamp).
func (e *env) wait(d time.Duration) {
	e.t.Helper()
	// The pool drops the transactions of the last block asynchronously, and
	// the backend adjusts time only when the pool is empty.
	var err error
	for range 400 {
		if err = e.sim.AdjustTime(d); err == nil {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	require.NoError(e.t, err)
	e.sim.Commit()
}

// publish proposes tree for epoch, waits out the timelock and accepts it.
func (e *env) publish(epoch uint64, tree *payout.Tree) {
	e.t.Helper()
	e.proposeTree(epoch, tree)
	e.wait(rootDelay)
	e.send(e.relayer, e.vaultC, e.vault.PackAcceptRoot(epoch))
}

// lastProposed and cancelledThrough read the vault's epoch watermarks.
func (e *env) lastProposed() uint64 {
	v, err := e.vault.UnpackLastProposedEpoch(e.view(e.vault.PackLastProposedEpoch()))
	require.NoError(e.t, err)
	return v
}

func (e *env) cancelledThrough() uint64 {
	v, err := e.vault.UnpackCancelledThrough(e.view(e.vault.PackCancelledThrough()))
	require.NoError(e.t, err)
	return v
}

func (e *env) claimData(tree *payout.Tree, account common.Address) []byte {
	e.t.Helper()
	cum, proof, err := tree.Proof(account)
	require.NoError(e.t, err)
	return e.vault.PackClaim(account, cum, toProof(proof))
}

// checkSolvent asserts the vault's books: it holds exactly what was
// deposited less what was paid, pays no more than its accepted total, and
// that total is within the deposits.
func (e *env) checkSolvent() {
	e.t.Helper()
	deposited, paid, acc := e.totalDeposited(), e.totalClaimed(), e.accepted()
	require.Equal(e.t, new(big.Int).Sub(deposited, paid), e.balance(e.vaultAddr), "vault balance")
	require.LessOrEqual(e.t, paid.Cmp(acc.TotalCumulative), 0, "paid %s > accepted total %s", paid, acc.TotalCumulative)
	require.LessOrEqual(e.t, acc.TotalCumulative.Cmp(deposited), 0, "accepted total %s > deposits %s", acc.TotalCumulative, deposited)
}

func tree(t testing.TB, entries ...payout.Entry) *payout.Tree {
	t.Helper()
	tr, err := payout.NewTree(entries)
	require.NoError(t, err)
	return tr
}

func entry(a common.Address, amount *big.Int) payout.Entry {
	return payout.Entry{Account: a, Cumulative: amount}
}

func toValset(v payout.Valset) bindings.SettlementVaultValset {
	return bindings.SettlementVaultValset{Validators: v.Validators, Powers: v.Powers, Nonce: v.Nonce}
}

func toSigs(sigs []payout.Signature) []bindings.SettlementVaultSignature {
	out := make([]bindings.SettlementVaultSignature, len(sigs))
	for i, s := range sigs {
		out[i] = bindings.SettlementVaultSignature{Index: s.Index, V: s.V, R: s.R, S: s.S}
	}
	return out
}

func toProof(p []common.Hash) [][32]byte {
	out := make([][32]byte, len(p))
	for i, h := range p {
		out[i] = h
	}
	return out
}
