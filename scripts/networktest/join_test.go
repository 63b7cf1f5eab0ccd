package networktest_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/scripts/harness"
)

// joinTestnet walks a new validator in as docs/operators.md does: a home
// with the network's genesis and a persistent peer, an operator key in a
// file keyring unlocked by a passphrase file (stdin closed throughout),
// funds from the faucet in node0's keyring, the node synced, then
// create-validator from a JSON file; the chain bonds it and it signs.
// Its node listens on ports base..base+4.
func joinTestnet(t *testing.T, bin string, node0 *harness.Chain, dir string, base int, faucetPass string) {
	home := filepath.Join(dir, "joiner")
	run(t, nil, bin, "init", "joiner", "--chain-id", testnetChainID, "--home", home)
	genesis, err := os.ReadFile(filepath.Join(node0.Home, "config", "genesis.json"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(home, "config", "genesis.json"), genesis, 0o600))
	rpc := fmt.Sprintf("tcp://127.0.0.1:%d", base+1)
	edit(t, filepath.Join(home, "config", "client.toml"), map[string]string{
		"chain-id": `"` + testnetChainID + `"`, "keyring-backend": `"file"`, "node": `"` + rpc + `"`})
	// Five nodes on one address: CometBFT refuses that unless told.
	edit(t, filepath.Join(home, "config", "config.toml"), map[string]string{"allow_duplicate_ip": "true", "addr_book_strict": "false"})

	pass := filepath.Join(dir, "joiner.keyring-passphrase")
	require.NoError(t, os.WriteFile(pass, []byte("a passphrase for the joiner\n"), 0o600))
	run(t, nil, bin, "keys", "add", "joiner", "--home", home, "--keyring-passphrase-file", pass)
	addr := strings.TrimSpace(run(t, []string{"IDLEGPUD_KEYRING_PASSPHRASE_FILE=" + pass}, bin, "keys", "show", "joiner", "-a", "--home", home))

	node0.Tx("faucet", "bank", "send", "faucet", addr, "20000000000ugpu", "--keyring-passphrase-file", faucetPass)

	peer := strings.TrimSpace(run(t, nil, bin, "comet", "show-node-id", "--home", node0.Home))
	p2p0 := peerAddress(t, node0.Home)
	joiner := harness.Connect(t, harness.Binaries{Idlegpud: bin}, home, rpc, testnetChainID)
	joiner.Node = harness.Start(t, bin, "start", "--home", home, "--log_no_color",
		"--p2p.laddr", fmt.Sprintf("tcp://127.0.0.1:%d", base), "--rpc.laddr", rpc,
		"--grpc.address", fmt.Sprintf("127.0.0.1:%d", base+2), "--api.address", fmt.Sprintf("tcp://127.0.0.1:%d", base+3),
		"--rpc.pprof_laddr", fmt.Sprintf("127.0.0.1:%d", base+4), "--p2p.persistent_peers", peer+"@"+p2p0)
	t.Cleanup(func() {
		joiner.Node.Stop(t, syscall.SIGTERM)
		if t.Failed() {
			t.Logf("joiner log (tail):\n%s", harness.Tail(joiner.Node.Output(), 20))
		}
	})
	joiner.WaitHeight(node0.Height(), 90*time.Second)
	require.Equal(t, int64(20000000000), joiner.Balance(addr, "ugpu"), "the synced node sees the faucet's funds")

	// create-validator takes the validator's settings as a JSON file.
	pubkey := strings.TrimSpace(run(t, nil, bin, "comet", "show-validator", "--home", home))
	validator := filepath.Join(dir, "validator.json")
	require.NoError(t, os.WriteFile(validator, []byte(`{
  "pubkey": `+pubkey+`,
  "amount": "10000000000ugpu",
  "moniker": "joiner",
  "commission-rate": "0.10",
  "commission-max-rate": "0.20",
  "commission-max-change-rate": "0.01",
  "min-self-delegation": "1"
}`), 0o600))
	joiner.Tx("joiner", "staking", "create-validator", validator, "--keyring-passphrase-file", pass)

	var vals struct {
		Validators []struct {
			Description struct {
				Moniker string `json:"moniker"`
			} `json:"description"`
			Status string `json:"status"`
		} `json:"validators"`
	}
	harness.WaitFor(t, 30*time.Second, "the joiner bonded", func() bool {
		joiner.Query(&vals, "staking", "validators")
		for _, v := range vals.Validators {
			if v.Description.Moniker == "joiner" {
				return v.Status == "BOND_STATUS_BONDED"
			}
		}
		return false
	})
	waitSigners(t, node0, 4, 60*time.Second)
}

// edit sets TOML keys (each present once in the file) to raw values.
func edit(t *testing.T, path string, set map[string]string) {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	lines := strings.Split(string(b), "\n")
	for key, val := range set {
		found := 0
		for i, l := range lines {
			if strings.HasPrefix(l, key+" =") {
				lines[i] = key + " = " + val
				found++
			}
		}
		require.Equal(t, 1, found, "%s in %s", key, path)
	}
	require.NoError(t, os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o600))
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
