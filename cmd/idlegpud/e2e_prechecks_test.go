package main_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/scripts/harness"
)

// shortVotingPeriod edits a prepared node home's genesis so a proposal is
// decided in 5 s (4 s expedited, which must be shorter).
func shortVotingPeriod(t *testing.T, home string) {
	t.Helper()
	path := filepath.Join(home, "config", "genesis.json")
	bz, err := os.ReadFile(path)
	require.NoError(t, err)
	var doc map[string]any
	require.NoError(t, json.Unmarshal(bz, &doc))
	gov := doc["app_state"].(map[string]any)["gov"].(map[string]any)["params"].(map[string]any)
	gov["voting_period"], gov["expedited_voting_period"] = "5s", "4s"
	bz, err = json.MarshalIndent(doc, "", "  ")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, bz, 0o600))
}

// badInputCostsNothing runs each kind of bad input the CLI refuses before
// it signs (a clear first line, no panic), then a malformed message only
// the chain checks, which CheckTx refuses; alice's balance and sequence
// are the same after all of them.
func badInputCostsNothing(t *testing.T, n node, endpointURL string) {
	alice := n.Address("alice")
	sequence := func() string {
		m := regexp.MustCompile(`"sequence":"(\d+)"`).FindStringSubmatch(compact(t, n.cli("q", "auth", "account", alice, "-o", "json")))
		require.NotNil(t, m, "no sequence in alice's account")
		return m[1]
	}
	balance, seq := n.Balance(alice, "ugpu"), sequence()

	manifest := filepath.Join(t.TempDir(), "job.json")
	require.NoError(t, os.WriteFile(manifest, []byte(`{"command":["true"]}`), 0o600))
	postJob := func(flags ...string) []string {
		return append([]string{"tx", "auction", "post-job", "--gpus", "1", "--duration", "1h", "--manifest", manifest,
			"--image", "ghcr.io/acme/train@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
			"--from", "alice", "--yes"}, flags...)
	}
	for _, tc := range []struct {
		name  string
		args  []string
		first string // the first line on stderr; a prefix where it ends in "…"
	}{
		{"a fee without a denom", []string{"tx", "bank", "send", "alice", alice, "1ugpu", "--fees", "1000", "--yes"},
			`Error: --fees: "1000" has no denom: write it like 1000ugpu`},
		{"a hex price", postJob("--max-price", "0x10uusdc", "--model", "NVIDIA H100 80GB HBM3"),
			`Error: --max-price: "0x10uusdc" reads as 0 of denom x10uusdc: an amount must be positive, in plain decimal digits`},
		{"a denom the market does not take", postJob("--max-price", "1uatom"),
			`Error: --max-price: the market takes ugpu, uusdc, not uatom (x/offer payment_denoms)`},
		{"a GPU model the chain does not know", postJob("--max-price", "1usdc/gpu-h", "--model", "NVIDIA H100 80GB"),
			`Error: --model: "NVIDIA H100 80GB" is not in the chain's GPU model table (x/settlement gpu_models): "NVIDIA A100-SXM4-80GB", …`},
		{"an agent that is no account", []string{"tx", "provider", "update-provider", "Alice rack", "eu-de-fra1", endpointURL,
			"--agents", "0xabc", "--from", "alice", "--yes"},
			`Error: --agents: "0xabc" is neither a key name nor an account address (idle1… or 0x and 40 hex digits)`},
		{"a lease that does not exist", []string{"tx", "auction", "close-lease", "999", "--from", "alice", "--yes"},
			`Error: lease 999 not found`},
		{"a query of an offer that does not exist: one rpc error", []string{"q", "offer", "offer", "999"},
			`Error: rpc error: code = NotFound desc = offer 999: offer not found`},
	} {
		out, err := exec.Command(idlegpud, append(tc.args, "--home", n.Home, "--node", n.RPC)...).CombinedOutput()
		require.Error(t, err, "%s: %s", tc.name, out)
		require.NotContains(t, string(out), "goroutine", "%s: a panic", tc.name)
		first, _, _ := strings.Cut(string(out), "\n")
		if prefix, ok := strings.CutSuffix(tc.first, "…"); ok {
			require.True(t, strings.HasPrefix(first, prefix), "%s: %q, want %q…", tc.name, first, prefix)
			continue
		}
		require.Equal(t, tc.first, first, tc.name)
	}

	// Autocli builds close-lease, so only the chain checks its reason: the
	// node refuses it in CheckTx, before the fee, with the module's code,
	// which the command prints and exits 1 with.
	var res struct {
		TxHash    string `json:"txhash"`
		Code      uint32 `json:"code"`
		Codespace string `json:"codespace"`
		RawLog    string `json:"raw_log"`
	}
	refused := exec.Command(idlegpud, "tx", "auction", "close-lease", "1", "--reason", strings.Repeat("r", 300),
		"--from", "alice", "--gas", "400000", "--fees", "1000ugpu", "--yes", "-o", "json", "--home", n.Home, "--node", n.RPC)
	var stderr strings.Builder
	refused.Stderr = &stderr
	stdout, err := refused.Output()
	require.Error(t, err, "exit status")
	require.NoError(t, json.Unmarshal(stdout, &res), "%s", stdout)
	require.Equal(t, "auction", res.Codespace, res.RawLog)
	require.EqualValues(t, 30, res.Code, res.RawLog)
	require.Equal(t, "at most 256 printable bytes: invalid reason", res.RawLog)
	require.Equal(t, "Error: the node refused tx "+res.TxHash+" with code 30 (auction): at most 256 printable bytes: invalid reason\n", stderr.String())

	n.waitHeight(n.height()+2, 30*time.Second)
	require.Equal(t, balance, n.Balance(alice, "ugpu"), "no fee was paid")
	require.Equal(t, seq, sequence(), "nothing was signed into a block")
}

// providerCannotTakeWork raises min_stake_per_gpu by proposal above
// alice's 150 GPU stake: she is no longer ACTIVE, and her OPEN offer says
// so. Jailing would show the same flag; a real node reaches it only after
// missed proof epochs, too slow for this test.
func providerCannotTakeWork(t *testing.T, n node) {
	require.Contains(t, compact(t, n.cli("q", "offer", "offer", "1", "-o", "json")), `"provider_can_take_work":true`)

	var res struct {
		Params map[string]any `json:"params"`
	}
	require.NoError(t, json.Unmarshal(n.cli("q", "provider", "params", "-o", "json"), &res))
	res.Params["min_stake_per_gpu"] = map[string]string{"denom": "ugpu", "amount": "200000000"}
	bz, err := json.Marshal(res.Params)
	require.NoError(t, err)
	n.tx("provider", "update-params-proposal", string(bz), "--deposit", "10000000ugpu",
		"--title", "Raise the stake", "--summary", "Above alice's stake.")
	var proposals struct {
		Proposals []struct {
			ID     string `json:"id"`
			Status string `json:"status"`
		} `json:"proposals"`
	}
	require.NoError(t, json.Unmarshal(n.cli("q", "gov", "proposals", "-o", "json"), &proposals))
	require.NotEmpty(t, proposals.Proposals)
	id := proposals.Proposals[len(proposals.Proposals)-1].ID
	n.Tx("validator", "gov", "vote", id, "yes")
	harness.WaitFor(t, 60*time.Second, "proposal "+id+" to pass", func() bool {
		var p struct {
			Proposal struct {
				Status string `json:"status"`
			} `json:"proposal"`
		}
		return json.Unmarshal(n.cli("q", "gov", "proposal", id, "-o", "json"), &p) == nil && p.Proposal.Status == "PROPOSAL_STATUS_PASSED"
	})

	o := compact(t, n.cli("q", "offer", "offer", "1", "-o", "json"))
	require.Contains(t, o, `"provider_can_take_work":false`)
	require.Contains(t, o, `"status":"OFFER_STATUS_OPEN"`, "the offer's own status does not change: the flag is what tells")
}
