package main_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/scripts/harness"
)

// postJobs has from post n copies of one job in a single transaction of n
// messages (one transaction a block would take n seconds), and waits for
// it to be in a block.
func postJobs(t *testing.T, c *harness.Chain, from string, n int, args ...string) {
	t.Helper()
	gen := c.CLI(append(append([]string{"tx", "auction", "post-job"}, args...), "--from", from, "--generate-only", "--skip-market-check")...)
	var tx map[string]any
	require.NoError(t, json.Unmarshal(gen, &tx), "%s", gen)
	body := tx["body"].(map[string]any)
	msgs := body["messages"].([]any)
	require.Len(t, msgs, 1)
	for len(msgs) < n {
		msgs = append(msgs, msgs[0])
	}
	body["messages"] = msgs
	fee := tx["auth_info"].(map[string]any)["fee"].(map[string]any)
	fee["gas_limit"] = fmt.Sprint(250_000 * n)
	fee["amount"] = []any{map[string]any{"denom": "ugpu", "amount": "100000"}}
	dir := t.TempDir()
	unsigned, signed := filepath.Join(dir, "unsigned.json"), filepath.Join(dir, "signed.json")
	raw, err := json.Marshal(tx)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(unsigned, raw, 0o600))
	require.NoError(t, os.WriteFile(signed, c.CLI("tx", "sign", unsigned, "--from", from, "--chain-id", c.ChainID), 0o600))
	var res struct {
		Code   uint32 `json:"code"`
		TxHash string `json:"txhash"`
		RawLog string `json:"raw_log"`
	}
	out := c.CLI("tx", "broadcast", signed, "-o", "json")
	require.NoError(t, json.Unmarshal(out, &res), "%s", out)
	require.Zero(t, res.Code, res.RawLog)
	var inc struct {
		Code   uint32 `json:"code"`
		RawLog string `json:"raw_log"`
	}
	harness.WaitFor(t, 30*time.Second, "the jobs' tx", func() bool { return c.TryQuery(&inc, "tx", res.TxHash) })
	require.Zero(t, inc.Code, inc.RawLog)
}
