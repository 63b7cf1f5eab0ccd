package bindings_test

import (
	"bytes"
	"context"
	"fmt"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"
	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/contracts/bindings"
	"github.com/idlegpu/idlegpu/contracts/payout"
)

// gethBinary is where `make geth` (contracts/contracts.mk) builds the
// pinned geth; IDLEGPU_GETH overrides it.
const gethBinary = "../../build/tools/geth-v1.17.10"

// gethDelay is the vault's timelock against the real node: a few blocks.
const gethDelay = 3 * time.Second

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startGeth runs `geth --dev` (a block a second, chain id 1337, a funded
// and unlocked developer account) until the test ends, and returns its
// HTTP RPC client.
func startGeth(t *testing.T) *rpc.Client {
	t.Helper()
	bin := os.Getenv("IDLEGPU_GETH")
	if bin == "" {
		bin = gethBinary
	}
	if _, err := os.Stat(bin); err != nil {
		t.Skipf("no geth at %s (IDLEGPU_GETH): build it with `make geth`; `make test` does", bin)
	}
	dir := t.TempDir()
	httpPort := freePort(t)
	logPath := filepath.Join(dir, "geth.log")
	logf, err := os.Create(logPath)
	require.NoError(t, err)
	cmd := exec.Command(bin, "--dev", "--dev.period", "1",
		"--http", "--http.addr", "127.0.0.1", "--http.port", fmt.Sprint(httpPort), "--http.api", "eth,net,web3",
		"--datadir", filepath.Join(dir, "data"), "--ipcdisable", "--nodiscover", "--maxpeers", "0",
		"--port", "0", "--authrpc.addr", "127.0.0.1", "--authrpc.port", fmt.Sprint(freePort(t)),
		// A throwaway dev chain: geth's default shuts it down when the
		// machine's free disk falls below 512 MB, mid-test.
		"--datadir.minfreedisk", "0")
	cmd.Stdout, cmd.Stderr = logf, logf
	require.NoError(t, cmd.Start())
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			_ = cmd.Process.Kill()
			<-done
			t.Errorf("geth did not stop within 15 s of SIGINT")
		}
		_ = logf.Close()
		if t.Failed() {
			if b, err := os.ReadFile(logPath); err == nil {
				t.Logf("geth log (last 4 KiB):\n%s", tail(b, 4096))
			}
		}
	})

	url := fmt.Sprintf("http://127.0.0.1:%d", httpPort)
	deadline := time.Now().Add(30 * time.Second)
	for {
		select {
		case err := <-done:
			b, _ := os.ReadFile(logPath)
			t.Fatalf("geth exited: %v\n%s", err, tail(b, 4096))
		default:
		}
		c, err := rpc.Dial(url)
		if err == nil {
			var id hexutil.Big
			if err = c.Call(&id, "eth_chainId"); err == nil {
				return c
			}
			c.Close()
		}
		require.True(t, time.Now().Before(deadline), "geth's RPC did not come up in 30 s: %v", err)
		time.Sleep(100 * time.Millisecond)
	}
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return bytes.TrimSpace(b)
}

// gethEnv is a real geth node and the accounts used on it.
type gethEnv struct {
	t      *testing.T
	ctx    context.Context
	client *ethclient.Client
	rc     *rpc.Client
	chain  *big.Int
}

// newGethEnv starts geth --dev for t (90 s of context).
func newGethEnv(t *testing.T) *gethEnv {
	rc := startGeth(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	t.Cleanup(cancel)
	client := ethclient.NewClient(rc)
	chain, err := client.ChainID(ctx)
	require.NoError(t, err)
	return &gethEnv{t: t, ctx: ctx, client: client, chain: chain, rc: rc}
}

// fund sends each actor 1 ether from geth --dev's unlocked developer
// account and waits for every transfer.
func (g *gethEnv) fund(actors ...actor) {
	var devs []common.Address
	require.NoError(g.t, g.rc.CallContext(g.ctx, &devs, "eth_accounts"))
	require.NotEmpty(g.t, devs, "geth --dev has no developer account")
	ether := new(big.Int).Exp(big.NewInt(10), big.NewInt(18), nil)
	var funding []common.Hash
	for _, a := range actors {
		var h common.Hash
		require.NoError(g.t, g.rc.CallContext(g.ctx, &h, "eth_sendTransaction", map[string]any{
			"from": devs[0], "to": a.addr, "value": (*hexutil.Big)(ether),
		}))
		funding = append(funding, h)
	}
	for _, h := range funding {
		g.wait(h)
	}
}

func (g *gethEnv) actor(seed string) actor {
	key, err := crypto.ToECDSA(crypto.Keccak256([]byte("idlegpu vault geth actor " + seed)))
	require.NoError(g.t, err)
	opts := bind.NewKeyedTransactor(key, g.chain)
	opts.Context = g.ctx
	return actor{key: key, addr: opts.From, opts: opts}
}

func (g *gethEnv) wait(tx common.Hash) *types.Receipt {
	g.t.Helper()
	ctx, cancel := context.WithTimeout(g.ctx, 30*time.Second)
	defer cancel()
	rcpt, err := bind.WaitMined(ctx, g.client, tx)
	require.NoError(g.t, err)
	require.Equal(g.t, types.ReceiptStatusSuccessful, rcpt.Status, "tx %s", tx)
	return rcpt
}

func (g *gethEnv) send(from actor, c *bind.BoundContract, data []byte) *types.Receipt {
	g.t.Helper()
	tx, err := bind.Transact(c, from.opts, data)
	require.NoError(g.t, err)
	return g.wait(tx.Hash())
}

func (g *gethEnv) deploy(from actor, bin string, input []byte) common.Address {
	g.t.Helper()
	addr, tx, err := bind.DeployContract(from.opts, common.FromHex(bin), g.client, input)
	require.NoError(g.t, err)
	rcpt := g.wait(tx.Hash())
	require.Equal(g.t, addr, rcpt.ContractAddress)
	return addr
}

// TestGethDevEndToEnd runs the vault's whole flow on a real geth --dev
// node with real blocks: deploy, mint, deposit (its event read back from
// the node's logs), a root signed by 3 of 4 validators, the timelock
// passed by the chain's own clock, both accounts' claims paid to the unit
// and a repeated claim refused with the vault's exact error.
func TestGethDevEndToEnd(t *testing.T) {
	g := newGethEnv(t)
	require.Equal(t, big.NewInt(1337), g.chain)
	client, ctx := g.client, g.ctx
	deployer, relayer, renter := g.actor("deployer"), g.actor("relayer"), g.actor("renter")
	guardian := g.actor("guardian")
	p0, p1 := g.actor("provider 0"), g.actor("provider 1")
	g.fund(deployer, relayer, renter, p0, p1)

	// Token and vault: 4 equal validators, a 3-second timelock.
	token := bindings.NewTestUSDC()
	tokenAddr := g.deploy(deployer, bindings.TestUSDCMetaData.Bin, nil)
	tokenC := token.Instance(client, tokenAddr)
	valKeys, valset := validatorKeys(t, "geth", 4, 1)
	vault := bindings.NewSettlementVault()
	vaultID := crypto.Keccak256Hash([]byte("idlegpu vault geth test"))
	vaultAddr := g.deploy(deployer, bindings.SettlementVaultMetaData.Bin,
		vault.PackConstructor(tokenAddr, vaultID, guardian.addr, uint64(gethDelay/time.Second), toValset(valset)))
	vaultC := vault.Instance(client, vaultAddr)
	domain := payout.Domain{VaultID: vaultID, ChainID: g.chain, Vault: vaultAddr}
	balance := func(a common.Address) *big.Int {
		t.Helper()
		b, err := bind.Call(tokenC, &bind.CallOpts{Context: ctx}, token.PackBalanceOf(a), token.UnpackBalanceOf)
		require.NoError(t, err)
		return b
	}

	// Mint, approve, deposit an amount that is not a round number.
	amount := new(big.Int).Add(usdc(500), big.NewInt(7))
	g.send(deployer, tokenC, token.PackMint(renter.addr, usdc(1000)))
	g.send(renter, tokenC, token.PackApprove(vaultAddr, amount))
	depRcpt := g.send(renter, vaultC, vault.PackDeposit(amount, renter.addr))
	require.Equal(t, new(big.Int).Sub(usdc(1000), amount), balance(renter.addr))
	require.Equal(t, amount, balance(vaultAddr))

	// The Deposited event, read back through the node's log filter.
	start := depRcpt.BlockNumber.Uint64()
	it, err := bind.FilterEvents(vaultC, &bind.FilterOpts{Start: start, Context: ctx}, vault.UnpackDepositedEvent)
	require.NoError(t, err)
	var deps []*bindings.SettlementVaultDeposited
	for it.Next() {
		deps = append(deps, it.Value())
	}
	require.NoError(t, it.Error())
	require.NoError(t, it.Close())
	require.Len(t, deps, 1)
	require.Equal(t, uint64(1), deps[0].Nonce)
	require.Equal(t, renter.addr, deps[0].From)
	require.Equal(t, renter.addr, deps[0].Recipient)
	require.Equal(t, amount, deps[0].Amount)

	// A payout tree for two providers, signed by 3 of the 4 validators.
	c0 := new(big.Int).Add(usdc(300), big.NewInt(1))
	c1 := new(big.Int).Add(usdc(150), big.NewInt(3))
	tr := tree(t, entry(p0.addr, c0), entry(p1.addr, c1))
	total := tr.Total()
	digest, err := domain.RootDigest(valset.Nonce, 1, tr.Root(), total)
	require.NoError(t, err)
	sigs := signWith(t, valset, valKeys, digest, 0, 2, 3)
	propRcpt := g.send(relayer, vaultC, vault.PackProposeRoot(toValset(valset), sigs, 1, tr.Root(), total))
	pend, err := bind.Call(vaultC, &bind.CallOpts{Context: ctx}, vault.PackPendingRoots(1), vault.UnpackPendingRoots)
	require.NoError(t, err)
	propHead, err := client.HeaderByNumber(ctx, propRcpt.BlockNumber)
	require.NoError(t, err)
	require.Equal(t, propHead.Time+uint64(gethDelay/time.Second), pend.AcceptableAt)

	// Before the timelock the vault refuses acceptance (checked while the
	// head is more than a block short of it); real blocks then pass it.
	if head, err := client.HeaderByNumber(ctx, nil); err == nil && head.Time+1 < pend.AcceptableAt {
		raw := g.revertData(relayer, vaultC, vault.PackAcceptRoot(1))
		got, err := vault.UnpackError(raw)
		require.NoError(t, err, "revert data 0x%x is not a vault error", raw)
		require.IsType(t, &bindings.SettlementVaultTimelockNotExpired{}, got)
	}
	for {
		h, err := client.HeaderByNumber(ctx, nil)
		require.NoError(t, err)
		if h.Time >= pend.AcceptableAt {
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	g.send(relayer, vaultC, vault.PackAcceptRoot(1))

	// Both claims, paid to the unit; the vault keeps the rest.
	for _, a := range []actor{p0, p1} {
		cum, proof, err := tr.Proof(a.addr)
		require.NoError(t, err)
		g.send(relayer, vaultC, vault.PackClaim(a.addr, cum, toProof(proof)))
	}
	require.Equal(t, c0, balance(p0.addr))
	require.Equal(t, c1, balance(p1.addr))
	require.Equal(t, new(big.Int).Sub(amount, total), balance(vaultAddr))

	// The same cumulative again: NothingToClaim with its arguments.
	cum, proof, err := tr.Proof(p0.addr)
	require.NoError(t, err)
	raw := g.revertData(p0, vaultC, vault.PackClaim(p0.addr, cum, toProof(proof)))
	got, err := vault.UnpackError(raw)
	require.NoError(t, err, "revert data 0x%x is not a vault error", raw)
	requireSameError(t, &bindings.SettlementVaultNothingToClaim{Account: p0.addr, Cumulative: c0, AlreadyClaimed: c0}, got)
}

// revertData sends a transaction the node must refuse at gas estimation
// and returns the revert data it gives.
func (g *gethEnv) revertData(from actor, c *bind.BoundContract, data []byte) []byte {
	g.t.Helper()
	_, err := bind.Transact(c, from.opts, data)
	require.Error(g.t, err, "the transaction should revert")
	return revertDataOf(g.t, err)
}
