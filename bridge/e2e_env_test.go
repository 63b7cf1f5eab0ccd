package bridge

import (
	"context"
	"crypto/ecdsa"
	"encoding/hex"
	"fmt"
	"log/slog"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
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
	"github.com/idlegpu/idlegpu/scripts/harness"
	"github.com/idlegpu/idlegpu/scripts/harness/harnesstest"
)

// repoRoot is the repository root (scripts/node.sh makes the chain's home).
var repoRoot, _ = filepath.Abs("..")

// e2eBins are idlegpud, the agent and idlegpu-bridge built from the working
// tree once per test binary.
var (
	buildOnce sync.Once
	buildDir  string
	e2eBins   harness.Binaries
	bridgeBin string
	buildErr  error
)

// TestMain removes the built binaries (hundreds of MB) when the tests end,
// so a long CI run does not fill the disk.
func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		_ = os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

func buildBinaries(t *testing.T) (harness.Binaries, string) {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "bridge-e2e")
		if err != nil {
			buildErr = err
			return
		}
		buildDir = dir
		if e2eBins, buildErr = harnesstest.Build(repoRoot, dir); buildErr != nil {
			return
		}
		bridgeBin = filepath.Join(dir, "idlegpu-bridge")
		b := exec.Command("go", "build", "-o", bridgeBin, "./cmd/idlegpu-bridge")
		b.Dir = repoRoot
		if out, err := b.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("building idlegpu-bridge: %v: %s", err, out)
		}
	})
	require.NoError(t, buildErr)
	return e2eBins, bridgeBin
}

// gethNode is a real `geth --dev` (a block a second, chain id 1337) and the
// node's unlocked developer account that funds the test's keys.
type gethNode struct {
	t      *testing.T
	ctx    context.Context
	URL    string
	rpc    *rpc.Client
	client *ethclient.Client
	chain  *big.Int
	dev    common.Address
}

// startGeth runs geth --dev from $IDLEGPU_GETH until the test ends.
func startGeth(t *testing.T, ctx context.Context) *gethNode {
	t.Helper()
	bin := os.Getenv("IDLEGPU_GETH")
	require.NotEmpty(t, bin)
	dir := t.TempDir()
	ports := harness.FreePorts(t, 2)
	p := harness.Start(t, bin, "--dev", "--dev.period", "1",
		"--http", "--http.addr", "127.0.0.1", "--http.port", fmt.Sprint(ports[0]), "--http.api", "eth,net,web3",
		"--datadir", filepath.Join(dir, "data"), "--ipcdisable", "--nodiscover", "--maxpeers", "0",
		"--port", "0", "--authrpc.addr", "127.0.0.1", "--authrpc.port", fmt.Sprint(ports[1]),
		// A throwaway dev chain: geth's default shuts it down when the
		// machine's free disk falls below 512 MB, mid-test.
		"--datadir.minfreedisk", "0")
	t.Cleanup(func() {
		p.Stop(t, syscall.SIGINT)
		if t.Failed() {
			t.Logf("geth output (tail):\n%s", harness.Tail(p.Output(), 20))
		}
	})
	g := &gethNode{t: t, ctx: ctx, URL: fmt.Sprintf("http://127.0.0.1:%d", ports[0])}
	harness.WaitFor(t, 30*time.Second, "geth's RPC", func() bool {
		c, err := rpc.Dial(g.URL)
		if err != nil {
			return false
		}
		var id hexutil.Big
		if err := c.Call(&id, "eth_chainId"); err != nil {
			c.Close()
			return false
		}
		g.rpc, g.chain = c, (*big.Int)(&id)
		return true
	})
	g.client = ethclient.NewClient(g.rpc)
	var devs []common.Address
	require.NoError(t, g.rpc.CallContext(ctx, &devs, "eth_accounts"))
	require.NotEmpty(t, devs, "geth --dev has no developer account")
	g.dev = devs[0]
	return g
}

// ethActor is an EVM key, kept in a hex key file for the binaries.
type ethActor struct {
	key  *ecdsa.PrivateKey
	Addr common.Address
	File string
}

// actor makes a deterministic key and its key file.
func (g *gethNode) actor(name string) ethActor {
	key, err := crypto.ToECDSA(crypto.Keccak256([]byte("idlegpu bridge e2e " + name)))
	require.NoError(g.t, err)
	file := filepath.Join(g.t.TempDir(), name+".hex")
	require.NoError(g.t, os.WriteFile(file, []byte(hex.EncodeToString(crypto.FromECDSA(key))), 0o600))
	return ethActor{key: key, Addr: crypto.PubkeyToAddress(key.PublicKey), File: file}
}

// fund sends each address one ether of gas money from the dev account.
func (g *gethNode) fund(addrs ...common.Address) {
	ether := new(big.Int).Exp(big.NewInt(10), big.NewInt(18), nil)
	var hashes []common.Hash
	for _, a := range addrs {
		var h common.Hash
		require.NoError(g.t, g.rpc.CallContext(g.ctx, &h, "eth_sendTransaction", map[string]any{
			"from": g.dev, "to": a, "value": (*hexutil.Big)(ether)}))
		hashes = append(hashes, h)
	}
	for _, h := range hashes {
		g.wait(h)
	}
}

func (g *gethNode) wait(h common.Hash) *types.Receipt {
	g.t.Helper()
	ctx, cancel := context.WithTimeout(g.ctx, 30*time.Second)
	defer cancel()
	r, err := bind.WaitMined(ctx, g.client, h)
	require.NoError(g.t, err)
	require.Equal(g.t, types.ReceiptStatusSuccessful, r.Status, "tx %s", h)
	return r
}

func (g *gethNode) opts(a ethActor) *bind.TransactOpts {
	o := bind.NewKeyedTransactor(a.key, g.chain)
	o.Context = g.ctx
	return o
}

// send calls c with data from a and waits for success.
func (g *gethNode) send(a ethActor, c *bind.BoundContract, data []byte) *types.Receipt {
	g.t.Helper()
	tx, err := bind.Transact(c, g.opts(a), data)
	require.NoError(g.t, err)
	return g.wait(tx.Hash())
}

// deployToken deploys TestUSDC from a.
func (g *gethNode) deployToken(a ethActor) common.Address {
	addr, tx, err := bind.DeployContract(g.opts(a), common.FromHex(bindings.TestUSDCMetaData.Bin), g.client, nil)
	require.NoError(g.t, err)
	g.wait(tx.Hash())
	return addr
}

// nextAddress is where a's next deployment lands.
func (g *gethNode) nextAddress(a ethActor) common.Address {
	n, err := g.client.PendingNonceAt(g.ctx, a.Addr)
	require.NoError(g.t, err)
	return crypto.CreateAddress(a.Addr, n)
}

// usdcBalance is an address's TestUSDC balance.
func (g *gethNode) usdcBalance(token common.Address, who common.Address) int64 {
	tok := bindings.NewTestUSDC()
	b, err := bind.Call(tok.Instance(g.client, token), &bind.CallOpts{Context: g.ctx}, tok.PackBalanceOf(who), tok.UnpackBalanceOf)
	require.NoError(g.t, err)
	require.True(g.t, b.IsInt64())
	return b.Int64()
}

// bridgeProc runs idlegpu-bridge with args, in the background.
func bridgeProc(t *testing.T, bin string, args ...string) *harness.Proc {
	return harness.Start(t, bin, args...)
}

// runBridge runs an idlegpu-bridge command to its end and returns stdout.
func runBridge(t *testing.T, bin string, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "idlegpu-bridge %s: %s%s", strings.Join(args, " "), out, stderr.String())
	return string(out)
}

// runBridgeErr runs an idlegpu-bridge command that may fail.
func runBridgeErr(bin string, args ...string) (string, error) {
	out, err := exec.Command(bin, args...).CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("%w: %s", err, out)
	}
	return string(out), nil
}

func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }
