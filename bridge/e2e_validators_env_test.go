package bridge

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	rpchttp "github.com/cometbft/cometbft/rpc/client/http"
	"github.com/ethereum/go-ethereum/accounts/abi/bind/v2"
	"github.com/ethereum/go-ethereum/common"
	"github.com/stretchr/testify/require"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/scripts/harness"
	"github.com/idlegpu/idlegpu/x/base/chaincfg"
	bridgetypes "github.com/idlegpu/idlegpu/x/bridge/types"
)

// e2eValidator is one validator of a localnet as the bridge sees it: its
// node, its operator key (which is also its orchestrator account), its EVM
// signer and its `idlegpu-bridge orchestrate` process.
type e2eValidator struct {
	t       *testing.T
	bin     string // idlegpu-bridge
	Index   int
	Node    *harness.Chain
	Key     string // operator key in the node's test keyring
	Valoper string
	Signer  ethActor
	metrics string // host:port of the orchestrator's /metrics
	run     *harness.Proc
	earlier []string // output of earlier runs
}

// newE2EValidator reads validator i's operator address from its keyring.
func newE2EValidator(t *testing.T, bins harness.Binaries, bridge string, node *harness.Chain, i int, signer ethActor) *e2eValidator {
	t.Helper()
	key := fmt.Sprintf("validator%d", i)
	out, err := exec.Command(bins.Idlegpud, "keys", "show", key, "--bech", "val", "-a",
		"--keyring-backend", "test", "--home", node.Home).Output()
	require.NoError(t, err, "keys show %s --bech val", key)
	v := &e2eValidator{t: t, bin: bridge, Index: i, Node: node, Key: key, Valoper: strings.TrimSpace(string(out)),
		Signer: signer, metrics: fmt.Sprintf("127.0.0.1:%d", harness.FreePorts(t, 1)[0])}
	t.Cleanup(func() { v.Stop(syscall.SIGTERM) })
	return v
}

// cosmosFlags are the flags every idlegpu-bridge command that signs for
// this validator needs: its own node and keyring.
func (v *e2eValidator) cosmosFlags() []string {
	return []string{"--node", v.Node.RPC, "--chain-id", v.Node.ChainID, "--keyring-dir", v.Node.Home,
		"--keyring-backend", "test", "--from", v.Key}
}

// Register runs `idlegpu-bridge register` with signer as the validator's
// EVM key (the operator is its own orchestrator) and makes it the key the
// orchestrator signs with from its next start.
func (v *e2eValidator) Register(signer ethActor) {
	v.t.Helper()
	out := runBridge(v.t, v.bin, append([]string{"register", "--eth-key", signer.File}, v.cosmosFlags()...)...)
	require.Contains(v.t, out, signer.Addr.Hex())
	v.Signer = signer
}

// Start runs the validator's orchestrator with its current signer. It
// attests at the params' confirmation depth: geth --dev finalizes only
// every 32 blocks, which would make each deposit wait up to half a minute.
func (v *e2eValidator) Start(evmRPC string) {
	v.run = bridgeProc(v.t, v.bin, append([]string{"orchestrate", "--eth-rpc", evmRPC, "--eth-key", v.Signer.File,
		"--poll", "500ms", "--finality", "depth", "--metrics-listen", v.metrics}, v.cosmosFlags()...)...)
}

// Stop ends the orchestrator with sig (a no-op when it is not running).
func (v *e2eValidator) Stop(sig syscall.Signal) {
	if v.run == nil {
		return
	}
	v.run.Stop(v.t, sig)
	v.earlier = append(v.earlier, v.run.Output())
	v.run = nil
}

// Output is every run's output so far.
func (v *e2eValidator) Output() string {
	s := strings.Join(v.earlier, "")
	if v.run != nil {
		s += v.run.Output()
	}
	return s
}

// Metric is a sample of the running orchestrator's /metrics: name with its
// labels exactly as exposed (e.g. `x_total{step="deposits"}`); 0 when the
// series does not exist (a counter never incremented).
func (v *e2eValidator) Metric(series string) float64 {
	v.t.Helper()
	res, err := http.Get("http://" + v.metrics + "/metrics")
	require.NoError(v.t, err)
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	require.NoError(v.t, err)
	for _, line := range strings.Split(string(body), "\n") {
		if rest, ok := strings.CutPrefix(line, series+" "); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(rest), 64)
			require.NoError(v.t, err, "metric %s", line)
			return f
		}
	}
	return 0
}

// evmAddressOf is the EVM address with an idlegpu account's 20 bytes: a
// vault deposit to it credits that account.
func evmAddressOf(t *testing.T, account string) common.Address {
	t.Helper()
	b, err := sdk.GetFromBech32(account, chaincfg.Bech32Prefix)
	require.NoError(t, err)
	return common.BytesToAddress(b)
}

// attestations reads, from the chain's indexed transactions (the
// development app.toml indexes message.action, not the bridge's events),
// which validators' attestations the chain accepted for each deposit nonce,
// in the order they were included (a duplicate would show twice), and the
// height of the newest one.
func attestations(ctx context.Context, t *testing.T, node string) (map[uint64][]string, int64) {
	t.Helper()
	rc, err := rpchttp.New(node, "/websocket")
	require.NoError(t, err)
	out := map[uint64][]string{}
	var top int64
	perPage := 100
	for page := 1; ; page++ {
		res, err := rc.TxSearch(ctx, "message.action='/idlegpu.bridge.v1.MsgAttestDeposit'", false, &page, &perPage, "asc")
		require.NoError(t, err)
		for _, tx := range res.Txs {
			top = max(top, tx.Height)
			for _, ev := range tx.TxResult.Events {
				if ev.Type != "idlegpu.bridge.v1.EventDepositAttested" {
					continue
				}
				var val, nonce string
				for _, a := range ev.Attributes {
					switch a.Key {
					case "validator":
						require.NoError(t, json.Unmarshal([]byte(a.Value), &val))
					case "nonce":
						require.NoError(t, json.Unmarshal([]byte(a.Value), &nonce))
					}
				}
				n, err := strconv.ParseUint(nonce, 10, 64)
				require.NoError(t, err, "nonce %q", nonce)
				out[n] = append(out[n], val)
			}
		}
		if page*perPage >= res.TotalCount {
			return out, top
		}
	}
}

// creditedAttestations waits for deposit nonce to be credited and for the
// node to have indexed the block that credited it (indexing follows the
// commit), then returns every attestation: none of nonce or before can be
// accepted after its credit.
func creditedAttestations(ctx context.Context, t *testing.T, node string, q bridgetypes.QueryClient, nonce uint64) map[uint64][]string {
	t.Helper()
	var credit int64
	harness.WaitFor(t, 60*time.Second, fmt.Sprintf("deposit %d credited", nonce), func() bool {
		res, err := q.Deposit(ctx, &bridgetypes.QueryDepositRequest{Nonce: nonce})
		if err != nil || res.Deposit == nil {
			return false
		}
		credit = res.Deposit.Height
		return true
	})
	var atts map[uint64][]string
	harness.WaitFor(t, 10*time.Second, fmt.Sprintf("the attestations of block %d indexed", credit), func() bool {
		var top int64
		atts, top = attestations(ctx, t, node)
		return top >= credit
	})
	return atts
}

// attestedBy is whether v's attestation of nonce is among atts.
func attestedBy(atts map[uint64][]string, nonce uint64, v *e2eValidator) bool {
	return slices.Contains(atts[nonce], v.Valoper)
}

// vaultView calls one of the vault's view functions.
func vaultView[T any](t *testing.T, ctx context.Context, c *bind.BoundContract, data []byte, unpack func([]byte) (T, error)) T {
	t.Helper()
	v, err := bind.Call(c, &bind.CallOpts{Context: ctx}, data, unpack)
	require.NoError(t, err)
	return v
}

// paidRe is what `idlegpu-bridge claim` prints for a payment.
var paidRe = regexp.MustCompile(`^paid (\d+) to (0x[0-9a-fA-F]{40})`)

// figure is one asserted number: what the chains say and what the story
// expects.
type figure struct {
	what      string
	got, want int64
}

// requireFigures prints the figures as a table (so a failure shows all of
// them, not only the first wrong one) and then requires each.
func requireFigures(t *testing.T, title string, figs []figure) {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "%-44s %14s %14s\n", title, "actual", "expected")
	for _, f := range figs {
		mark := "ok"
		if f.got != f.want {
			mark = "MISMATCH"
		}
		fmt.Fprintf(&b, "%-44s %14d %14d  %s\n", f.what, f.got, f.want, mark)
	}
	t.Logf("%s:\n%s", title, b.String())
	for _, f := range figs {
		require.Equal(t, f.want, f.got, f.what)
	}
}
