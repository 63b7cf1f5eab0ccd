package keeper_test

import (
	"crypto/ecdsa"
	"fmt"
	"math/big"
	"testing"

	"cosmossdk.io/math"
	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/require"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/app"
	"github.com/idlegpu/idlegpu/app/apptesting"
	"github.com/idlegpu/idlegpu/contracts/payout"
	"github.com/idlegpu/idlegpu/x/bridge/types"
)

// vault is the vault address the test chain names (x/bridge's
// vault_address); nothing runs at it here, only digests bind it.
var vault = common.HexToAddress("0x5FbDB2315678afecb367f032d93F642f64180aa3")

// network is the real app with four bonded validators of equal power, each
// operated by the account at its index, and a fifth account (a user) that
// holds no bridged coins.
type network struct {
	t    testing.TB
	app  *app.App
	accs []apptesting.Account
	evm  []*ecdsa.PrivateKey
}

func newNetwork(t testing.TB) *network {
	accs := apptesting.NewAccounts(5, sdk.NewCoins(sdk.NewInt64Coin("ugpu", 1_000_000_000_000)))
	a := apptesting.NewApp(t)
	gen := apptesting.GenesisWithValidators(t, a, accs, 1, 1, 1, 1)
	cdc := a.AppCodec()

	var bg types.GenesisState
	cdc.MustUnmarshalJSON(gen[types.ModuleName], &bg)
	bg.Params.EvmChainId, bg.Params.VaultAddress = 1337, vault.Hex()
	bg.Params.PayoutEpochBlocks = 2
	bg.Params.SigningWindowBlocks = 3
	bg.Params.MinWithdrawal = math.NewInt(1_000)
	gen[types.ModuleName] = cdc.MustMarshalJSON(&bg)

	apptesting.InitChain(t, a, gen)
	apptesting.NextBlock(t, a)
	n := &network{t: t, app: a, accs: accs}
	for i := range 4 {
		k, err := crypto.HexToECDSA(fmt.Sprintf("%064x", 0xb1d6e000+i))
		require.NoError(t, err)
		n.evm = append(n.evm, k)
	}
	return n
}

func (n *network) ctx() sdk.Context { return n.app.NewContext(true) }

func (n *network) valoper(i int) string { return sdk.ValAddress(n.accs[i].Address).String() }

func (n *network) evmAddr(i int) common.Address { return crypto.PubkeyToAddress(n.evm[i].PublicKey) }

// tx delivers msgs signed by account i and returns the result.
func (n *network) tx(i int, msgs ...sdk.Msg) *abci.ExecTxResult {
	n.t.Helper()
	return apptesting.DeliverTx(n.t, n.app, n.accs[i], msgs...)
}

func (n *network) ok(res *abci.ExecTxResult) {
	n.t.Helper()
	require.Zero(n.t, res.Code, res.Log)
}

func (n *network) refused(res *abci.ExecTxResult, want interface{ ABCICode() uint32 }) {
	n.t.Helper()
	require.Equal(n.t, types.ModuleName, res.Codespace, res.Log)
	require.Equal(n.t, want.ABCICode(), res.Code, res.Log)
}

func (n *network) register(i int) *types.MsgRegisterEvmSigner {
	orch := n.accs[i].Address.String()
	digest := types.SignerProofDigest(apptesting.ChainID, n.valoper(i), orch, n.evmAddr(i))
	proof, err := types.SignDigest(n.evm[i], digest)
	require.NoError(n.t, err)
	return &types.MsgRegisterEvmSigner{Operator: orch, Orchestrator: orch, EvmAddress: n.evmAddr(i).Hex(), Proof: proof}
}

func (n *network) attest(i int, nonce uint64, recipient common.Address, amount int64) *types.MsgAttestDeposit {
	return &types.MsgAttestDeposit{
		Orchestrator: n.accs[i].Address.String(), Nonce: nonce,
		EvmSender: "0x1111111111111111111111111111111111111111", EvmRecipient: recipient.Hex(),
		Amount: math.NewInt(amount), EvmBlockNumber: 100 + nonce,
		EvmTxHash:    common.BigToHash(big.NewInt(int64(nonce))).Hex(),
		EvmBlockHash: blockHash(100 + nonce).Hex(),
	}
}

// blockHash stands for the hash of EVM block number on the canonical chain.
func blockHash(number uint64) common.Hash {
	return crypto.Keccak256Hash(big.NewInt(int64(number)).Bytes())
}

func (n *network) balance(addr sdk.AccAddress) int64 {
	return n.app.BankKeeper.GetBalance(n.ctx(), addr, "uusdc").Amount.Int64()
}

func (n *network) status() types.QueryStatusResponse {
	res, err := n.app.BridgeKeeper.Progress.Get(n.ctx())
	require.NoError(n.t, err)
	t, err := n.app.BridgeKeeper.Totals.Get(n.ctx())
	require.NoError(n.t, err)
	return types.QueryStatusResponse{Progress: res, Totals: t}
}

// TestBridgeOnFourValidators drives the bridge through the real app with
// four validators of 25 % each: registration, the > 2/3 threshold for
// deposits, conflicts, bad input, withdrawals, a payout root signed to
// readiness, proofs the vault would accept, missed duties and the books.
func TestBridgeOnFourValidators(t *testing.T) {
	n := newNetwork(t)
	user := n.accs[4]
	userEvm := common.BytesToAddress(user.Address) // the account's EVM twin

	// --- registration
	bad := n.register(0)
	bad.Proof, _ = types.SignDigest(n.evm[1], types.SignerProofDigest(apptesting.ChainID, n.valoper(0), bad.Orchestrator, n.evmAddr(0)))
	n.refused(n.tx(0, bad), types.ErrBadProof)
	replay := n.register(0) // a proof for validator 0, sent by validator 1
	replay.Operator, replay.Orchestrator = n.accs[1].Address.String(), n.accs[1].Address.String()
	n.refused(n.tx(1, replay), types.ErrBadProof)
	notVal := n.register(0)
	notVal.Operator, notVal.Orchestrator = user.Address.String(), user.Address.String()
	n.refused(n.tx(4, notVal), types.ErrNotValidator)
	for i := range 3 {
		n.ok(n.tx(i, n.register(i)))
	}
	// Three of four registered carry 75 % > 2/3: the first valset.
	vs, err := n.app.BridgeKeeper.Valsets.Get(n.ctx(), 1)
	require.NoError(t, err)
	require.Len(t, vs.Members, 3)
	for _, m := range vs.Members {
		require.Equal(t, uint64(1<<30), m.Power) // a quarter of 2^32 each
	}
	taken := n.register(3)
	taken.EvmAddress = n.evmAddr(0).Hex()
	taken.Proof, _ = types.SignDigest(n.evm[0], types.SignerProofDigest(apptesting.ChainID, n.valoper(3), taken.Orchestrator, n.evmAddr(0)))
	n.refused(n.tx(3, taken), types.ErrSignerTaken)
	n.ok(n.tx(3, n.register(3)))
	apptesting.NextBlock(t, n.app)
	require.Equal(t, uint64(2), n.status().Progress.LastValsetNonce, "a fourth signer joined: a new valset")

	// --- deposits: 2 of 4 credit nothing, 3 of 4 do.
	n.ok(n.tx(0, n.attest(0, 1, userEvm, 5_000_000)))
	n.ok(n.tx(1, n.attest(1, 1, userEvm, 5_000_000)))
	apptesting.NextBlock(t, n.app)
	require.Equal(t, int64(0), n.balance(user.Address))
	require.Equal(t, uint64(0), n.status().Progress.LastCreditedNonce)
	n.ok(n.tx(2, n.attest(2, 1, userEvm, 5_000_000)))
	require.Equal(t, int64(5_000_000), n.balance(user.Address))
	require.Equal(t, "5000000", n.status().Totals.Deposited.String())

	// --- a conflicting claim is recorded and credits nothing.
	n.ok(n.tx(0, n.attest(0, 2, userEvm, 7_000_000)))
	n.ok(n.tx(1, n.attest(1, 2, userEvm, 7_000_000)))
	n.ok(n.tx(2, n.attest(2, 2, userEvm, 70_000_000))) // validator 2 lies about the amount
	apptesting.NextBlock(t, n.app)
	require.Equal(t, int64(5_000_000), n.balance(user.Address))
	conflict, err := n.app.BridgeKeeper.Conflicts.Get(n.ctx(), collectionsJoin(2, n.accs[2].Address))
	require.NoError(t, err)
	require.Equal(t, "70000000", conflict.Claim.Amount.String())
	n.ok(n.tx(3, n.attest(3, 2, userEvm, 7_000_000))) // the fourth agrees with the honest two
	require.Equal(t, int64(12_000_000), n.balance(user.Address))

	// --- bad input: typed errors, nothing moves.
	before := n.balance(user.Address)
	stranger := n.attest(0, 3, userEvm, 1)
	stranger.Orchestrator = user.Address.String() // an account no validator registered
	n.refused(n.tx(4, stranger), types.ErrNotOrchestrator)
	n.refused(n.tx(0, n.attest(0, 5, userEvm, 1)), types.ErrNonceOutOfOrder)
	n.refused(n.tx(0, n.attest(0, 2, userEvm, 7_000_000)), types.ErrAlreadyAttested)
	malformed := n.attest(0, 3, userEvm, 1)
	malformed.EvmRecipient = "0x1234"
	n.refused(n.tx(0, malformed), types.ErrInvalidClaim)
	zero := n.attest(0, 3, userEvm, 0)
	n.refused(n.tx(0, zero), types.ErrInvalidClaim)
	require.Equal(t, before, n.balance(user.Address))

	// --- withdrawals
	payee := common.HexToAddress("0x00000000000000000000000000000000000000aa")
	withdraw := func(to string, amount int64) *types.MsgWithdrawToEvm {
		return &types.MsgWithdrawToEvm{Sender: user.Address.String(), EvmRecipient: to, Amount: sdk.NewInt64Coin("uusdc", amount)}
	}
	n.refused(n.tx(4, withdraw(payee.Hex(), 12_000_001)), types.ErrInsufficientFunds)
	n.refused(n.tx(4, withdraw("0xnot-an-address", 1_000)), types.ErrInvalidEvmAddress)
	n.refused(n.tx(4, withdraw("0x5FBDB2315678afecb367f032d93F642f64180aa3", 1_000)), types.ErrInvalidEvmAddress) // bad checksum
	n.refused(n.tx(4, withdraw(payee.Hex(), 999)), types.ErrInvalidAmount)
	require.Equal(t, int64(12_000_000), n.balance(user.Address))
	n.ok(n.tx(4, withdraw(payee.Hex(), 3_000_000)))
	require.Equal(t, int64(9_000_000), n.balance(user.Address))
	cum, err := n.app.BridgeKeeper.Cumulative.Get(n.ctx(), payee.Bytes())
	require.NoError(t, err)
	require.Equal(t, "3000000", cum.String())

	// --- the payout root: built at the epoch boundary, ready at > 2/3.
	for n.status().Progress.LastEpoch == 0 {
		apptesting.NextBlock(t, n.app)
	}
	root, err := n.app.BridgeKeeper.Roots.Get(n.ctx(), 1)
	require.NoError(t, err)
	require.Equal(t, "3000000", root.TotalCumulative.String())
	require.Equal(t, uint64(2), root.ValsetNonce)
	confirm := func(i int, key *ecdsa.PrivateKey) *types.MsgConfirmRoot {
		sig, err := types.SignDigest(key, common.HexToHash(root.Digest))
		require.NoError(t, err)
		return &types.MsgConfirmRoot{Orchestrator: n.accs[i].Address.String(), Epoch: 1, Signature: sig}
	}
	n.refused(n.tx(0, confirm(0, n.evm[1])), types.ErrBadSignature)
	n.ok(n.tx(0, confirm(0, n.evm[0])))
	n.refused(n.tx(0, confirm(0, n.evm[0])), types.ErrAlreadyConfirmed)
	n.ok(n.tx(1, confirm(1, n.evm[1])))
	root, _ = n.app.BridgeKeeper.Roots.Get(n.ctx(), 1)
	require.Zero(t, root.ReadyHeight, "half the power is not enough")
	n.ok(n.tx(2, confirm(2, n.evm[2])))
	root, _ = n.app.BridgeKeeper.Roots.Get(n.ctx(), 1)
	require.NotZero(t, root.ReadyHeight)

	// The proof the chain serves is one the vault accepts, and the
	// signatures it collected pass the vault's check.
	q := keeperQuerier(n)
	proof, err := q.Proof(n.ctx(), &types.QueryProofRequest{EvmAddress: payee.Hex()})
	require.NoError(t, err)
	require.Equal(t, "3000000", proof.Cumulative)
	var hashes []common.Hash
	for _, h := range proof.Proof {
		hashes = append(hashes, common.HexToHash(h))
	}
	require.True(t, payout.Verify(common.HexToHash(root.Root), hashes, payee, big.NewInt(3_000_000)))
	vsRes, err := q.Valset(n.ctx(), &types.QueryValsetRequest{Nonce: 2})
	require.NoError(t, err)
	rootRes, err := q.Root(n.ctx(), &types.QueryRootRequest{ReadyOnly: true})
	require.NoError(t, err)
	pv, err := vsRes.Valset.VaultValset()
	require.NoError(t, err)
	var sigs []payout.Signature
	for i, addr := range pv.Validators {
		for _, c := range rootRes.Confirms {
			if c.EvmAddress == addr.Hex() {
				s, err := types.VaultSignature(uint32(i), c.Signature)
				require.NoError(t, err)
				sigs = append(sigs, s)
			}
		}
	}
	power, err := pv.Verify(common.HexToHash(root.Digest), sigs)
	require.NoError(t, err)
	require.Equal(t, uint64(3<<30), power)

	// --- misses: validator 3 never signed root 1; nobody confirmed valsets.
	for range 4 {
		apptesting.NextBlock(t, n.app)
	}
	miss, err := n.app.BridgeKeeper.Misses.Get(n.ctx(), sdk.ValAddress(n.accs[3].Address))
	require.NoError(t, err)
	require.Equal(t, uint64(1), miss.Roots)
	require.Equal(t, uint64(1), miss.Deposits, "deposit 1 was credited without validator 3")
	miss0, err := n.app.BridgeKeeper.Misses.Get(n.ctx(), sdk.ValAddress(n.accs[0].Address))
	require.NoError(t, err)
	require.Equal(t, uint64(0), miss0.Roots)
	require.Equal(t, uint64(0), miss0.Deposits)
	require.Equal(t, uint64(2), miss0.Valsets)

	require.NoError(t, n.app.BridgeKeeper.CheckInvariants(n.ctx()))

	// The whole state exports to a genesis that validates and carries the books.
	gs, err := n.app.BridgeKeeper.ExportGenesis(n.ctx())
	require.NoError(t, err)
	require.NoError(t, gs.Validate())
	require.Equal(t, "12000000", gs.Totals.Deposited.String())
	require.Equal(t, "3000000", gs.Totals.Withdrawn.String())
	require.Len(t, gs.Signers, 4)
	require.Len(t, gs.Deposits, 2)
	// Validator 2 against the first honest claim, and the fourth (honest)
	// validator against validator 2: each disagreement is on record.
	require.Len(t, gs.Conflicts, 2)

	// Fair to the honest: everything bridged in can always be withdrawn, to
	// the unit (withdrawals are capped at deposits, never below them).
	n.ok(n.tx(4, withdraw(payee.Hex(), 9_000_000)))
	require.Equal(t, int64(0), n.balance(user.Address))
	cum, err = n.app.BridgeKeeper.Cumulative.Get(n.ctx(), payee.Bytes())
	require.NoError(t, err)
	require.Equal(t, "12000000", cum.String())
	require.NoError(t, n.app.BridgeKeeper.CheckInvariants(n.ctx()))
}
