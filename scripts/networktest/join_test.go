package networktest_test

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/scripts/guides"
	"github.com/idlegpu/idlegpu/scripts/harness"
)

// The ports a home made by `idlegpud init` listens on, which the validator
// guide's node and bridge keep: p2p, RPC, gRPC, pprof, the orchestrator's
// metrics. The test cannot move them without changing the guide's words.
var guidePorts = []int{26656, 26657, 9090, 6060, 9470}

// joinAsTheGuideSays runs every tested block of docs/operators.md's "Join a
// network as a validator" in one bash, exactly as written, in the directory
// `make testnet` wrote (node0's home and passphrase, and the network's
// genesis.json as its operators publish it): a home with that genesis and
// node0 as its peer, an operator key in a file keyring unlocked by a
// passphrase file (stdin closed), funds from the faucet, the node started
// and synced, create-validator, the bridge's registration and its
// orchestrator running. Then the chain must show what the guide promises:
// the new validator bonded with its stake and signing, its orchestrator
// registered and working its rounds.
func joinAsTheGuideSays(t *testing.T, bin string, node0 *harness.Chain, dir string) {
	for _, p := range guidePorts {
		l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
		require.NoError(t, err, "the validator guide's node and bridge listen on %v: port %d is taken here", guidePorts, p)
		_ = l.Close()
	}
	blocks, err := guides.Journey("validator", filepath.Join(root, "docs", "operators.md"))
	require.NoError(t, err)
	genesis, err := os.ReadFile(filepath.Join(node0.Home, "config", "genesis.json"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "genesis.json"), genesis, 0o644))

	id := strings.TrimSpace(run(t, nil, bin, "comet", "show-node-id", "--home", node0.Home))
	mine := t.TempDir()
	home, bridge := filepath.Join(mine, "idlegpud"), filepath.Join(mine, "idlegpu-bridge")
	require.NoError(t, os.Mkdir(bridge, 0o700))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	out, stop, err := guides.Run(ctx, blocks, dir, []string{
		"HOME=" + t.TempDir(),
		"PATH=" + filepath.Dir(bin) + string(os.PathListSeparator) + os.Getenv("PATH"),
		"CHAIN_ID=" + testnetChainID, "H=" + home, "PASS=" + filepath.Join(mine, "operator.keyring-passphrase"),
		"B=" + bridge, "BPASS=" + filepath.Join(mine, "bridge.keyring-passphrase"),
		"PEERS=" + id + "@" + peerAddress(t, node0.Home),
	})
	t.Cleanup(func() {
		stop()
		if t.Failed() {
			for _, log := range []string{filepath.Join(home, "idlegpud.log"), filepath.Join(bridge, "orchestrate.log")} {
				b, _ := os.ReadFile(log)
				t.Logf("%s (tail):\n%s", log, harness.Tail(string(b), 20))
			}
		}
	})
	require.NoError(t, err, "output (tail):\n%s", harness.Tail(out, 40))
	require.Contains(t, out, `"catching_up": false`, "the guide waited for its node to catch up")

	var vals struct {
		Validators []struct {
			OperatorAddress string `json:"operator_address"`
			Description     struct {
				Moniker string `json:"moniker"`
			} `json:"description"`
			Status string `json:"status"`
			Tokens string `json:"tokens"`
		} `json:"validators"`
	}
	node0.Query(&vals, "staking", "validators")
	found := false
	for _, v := range vals.Validators {
		if v.Description.Moniker == "my-validator" {
			found = true
			require.Equal(t, "BOND_STATUS_BONDED", v.Status)
			require.Equal(t, "10000000000", v.Tokens, "the self-delegation validator.json names")
		}
	}
	require.True(t, found, "no validator my-validator on chain: %+v", vals.Validators)
	waitSigners(t, node0, 4, 60*time.Second)

	// The orchestrator is registered and its rounds run; they stop where
	// the guide says, at the vault this network has not named.
	harness.WaitFor(t, 60*time.Second, "the orchestrator's rounds stopping at the unset vault", func() bool {
		res, err := http.Get("http://127.0.0.1:9470/metrics")
		if err != nil {
			return false
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return regexp.MustCompile(`(?m)^idlegpu_bridge_[a-z]+_errors_total\{step="params"\} [1-9]`).Match(b)
	})
	t.Logf("the validator guide ran: %d blocks", len(blocks))
}

// peerAddress is the host:port a home's node listens on for peers.
func peerAddress(t *testing.T, home string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(home, "config", "config.toml"))
	require.NoError(t, err)
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "external_address = "); ok {
			var addr string
			require.NoError(t, json.Unmarshal([]byte(v), &addr))
			return addr
		}
	}
	t.Fatalf("no external_address in %s", home)
	return ""
}
