package networktest_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/scripts/harness"
)

const testnetChainID = "idlegpu-nettest"

// TestTestnet makes a 3-validator network with scripts/testnet.sh (what
// `make testnet` runs), starts each home as its README says, and sees
// every validator sign blocks; then a fourth validator joins the running
// chain as docs/operators.md walks one through it, with a file keyring
// unlocked by --keyring-passphrase-file and stdin closed.
func TestTestnet(t *testing.T) {
	bin := idlegpud(t)
	const n = 3
	dir := t.TempDir()
	base := portBase(t, n)
	ceremony := exec.Command(filepath.Join(root, "scripts", "testnet.sh"), "init")
	ceremony.Env = append(os.Environ(), "IDLEGPUD="+bin, "TESTNET_DIR="+dir, "N="+strconv.Itoa(n),
		"CHAIN_ID="+testnetChainID, "TESTNET_PORT_BASE="+strconv.Itoa(base), "HOSTS=")
	out, err := ceremony.CombinedOutput()
	require.NoError(t, err, "testnet.sh: %s", out)

	home := func(i int) string { return filepath.Join(dir, fmt.Sprintf("node%d", i)) }
	passphrase := func(i int) string { return filepath.Join(dir, fmt.Sprintf("node%d.keyring-passphrase", i)) }

	t.Run("one genesis with every gentx, a README and a passphrase a machine", func(t *testing.T) {
		genesis, err := os.ReadFile(filepath.Join(home(0), "config", "genesis.json"))
		require.NoError(t, err)
		var g struct {
			ChainID  string `json:"chain_id"`
			AppState struct {
				Genutil struct {
					GenTxs []json.RawMessage `json:"gen_txs"`
				} `json:"genutil"`
			} `json:"app_state"`
		}
		require.NoError(t, json.Unmarshal(genesis, &g))
		require.Equal(t, testnetChainID, g.ChainID)
		require.Len(t, g.AppState.Genutil.GenTxs, n)
		for i := range n {
			other, err := os.ReadFile(filepath.Join(home(i), "config", "genesis.json"))
			require.NoError(t, err)
			require.Equal(t, string(genesis), string(other), "node%d's genesis", i)

			info, err := os.Stat(passphrase(i))
			require.NoError(t, err)
			require.Equal(t, os.FileMode(0o600), info.Mode().Perm(), "only its owner reads a passphrase")

			readme, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("node%d.md", i)))
			require.NoError(t, err)
			require.Contains(t, string(readme), fmt.Sprintf("%s start --home %s", bin, home(i)))
			require.Contains(t, string(readme), fmt.Sprintf("| %d/tcp | CometBFT p2p |", base+10*i))

			config, err := os.ReadFile(filepath.Join(home(i), "config", "config.toml"))
			require.NoError(t, err)
			peers := 0
			for j := range n {
				id := strings.TrimSpace(run(t, nil, bin, "comet", "show-node-id", "--home", home(j)))
				if strings.Contains(string(config), fmt.Sprintf("%s@127.0.0.1:%d", id, base+10*j)) {
					peers++
					require.NotEqual(t, i, j, "node%d names itself as a peer", i)
				}
			}
			require.Equal(t, n-1, peers, "node%d's persistent peers", i)
		}
	})

	nodes := make([]*harness.Chain, n)
	for i := range n {
		c := harness.Connect(t, harness.Binaries{Idlegpud: bin}, home(i), fmt.Sprintf("tcp://127.0.0.1:%d", base+10*i+1), testnetChainID)
		c.Node = harness.Start(t, bin, "start", "--home", home(i), "--log_no_color")
		t.Cleanup(func() {
			c.Node.Stop(t, syscall.SIGTERM)
			if t.Failed() {
				t.Logf("node%d log (tail):\n%s", i, harness.Tail(c.Node.Output(), 20))
			}
		})
		nodes[i] = c
	}

	t.Run("every validator signs", func(t *testing.T) {
		h := waitSigners(t, nodes[0], n, 90*time.Second)
		for i := range n {
			nodes[i].WaitHeight(h, 30*time.Second)
			require.Equal(t, appHash(t, nodes[0], h), appHash(t, nodes[i], h), "node%d's app hash at %d", i, h)
		}
	})

	t.Run("CometBFT serves Prometheus metrics", func(t *testing.T) {
		res, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/metrics", base+5))
		require.NoError(t, err)
		defer res.Body.Close()
		body, err := io.ReadAll(res.Body)
		require.NoError(t, err)
		// What the example dashboard (docs/examples) plots.
		for _, m := range []string{"cometbft_consensus_height", "cometbft_consensus_validators", "cometbft_consensus_missing_validators",
			"cometbft_p2p_peers", "cometbft_mempool_size", "cometbft_consensus_block_interval_seconds_sum",
			"cometbft_consensus_validator_last_signed_height"} {
			require.True(t, strings.Contains(string(body), "\n"+m+"{"), "no metric %s", m)
		}
	})

	t.Run("a validator joins", func(t *testing.T) {
		joinAsTheGuideSays(t, bin, nodes[0], dir)
	})
}

// appHash is the app hash in block h's header.
func appHash(t *testing.T, c *harness.Chain, h int64) string {
	t.Helper()
	var b struct {
		Header struct {
			AppHash string `json:"app_hash"`
		} `json:"header"`
	}
	require.NoError(t, json.Unmarshal(c.CLI("q", "block", "--type=height", strconv.FormatInt(h, 10), "-o", "json"), &b))
	return b.Header.AppHash
}
