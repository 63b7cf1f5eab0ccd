package cmd

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	sdk "github.com/cosmos/cosmos-sdk/types"
	moduletestutil "github.com/cosmos/cosmos-sdk/types/module/testutil"
)

// TestTxResultOutput: the node's answer to a broadcast (no height), written
// as the SDK writes it in either format, goes through the wait: with
// --no-wait it is written as it came, a refusal is recorded, and an
// accepted tx is written as committed; every other write passes through.
func TestTxResultOutput(t *testing.T) {
	enc := moduletestutil.MakeTestEncodingConfig()
	accepted := sdk.TxResponse{TxHash: "0A1B"}
	refused := sdk.TxResponse{TxHash: "0A1B", Code: 13, Codespace: "sdk", RawLog: "insufficient fee"}
	committedFailed := sdk.TxResponse{TxHash: "0A1B", Height: 9, Code: 5, Codespace: "sdk", RawLog: "x"}
	asJSON := func(r sdk.TxResponse) []byte {
		bz, err := enc.Codec.MarshalJSON(&r)
		require.NoError(t, err)
		return bz
	}
	asYAML := func(r sdk.TxResponse) []byte {
		bz, err := yaml.JSONToYAML(asJSON(r))
		require.NoError(t, err)
		return bz
	}
	for _, tc := range []struct {
		name    string
		yaml    bool
		noWait  bool
		write   []byte
		want    string // written through
		failure string
	}{
		{"not a tx response", false, false, []byte(`{"body":{"messages":[]}}`), `{"body":{"messages":[]}}`, ""},
		{"the newline after JSON", false, false, []byte("\n"), "\n", ""},
		{"accepted, --no-wait", false, true, asJSON(accepted), string(asJSON(accepted)), ""},
		{"refused", false, false, asJSON(refused), string(asJSON(refused)),
			"the node refused tx 0A1B with code 13 (sdk): insufficient fee"},
		{"refused, as text", true, false, asYAML(refused), string(asYAML(refused)),
			"the node refused tx 0A1B with code 13 (sdk): insufficient fee"},
		{"committed: no broadcast answer", false, false, asJSON(committedFailed), string(asJSON(committedFailed)), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			wait := &txWait{noWait: tc.noWait, timeout: time.Second}
			o := &txResultOutput{w: &buf, cdc: enc.Codec, yaml: tc.yaml, wait: wait}
			n, err := o.Write(tc.write)
			require.NoError(t, err)
			require.Equal(t, len(tc.write), n)
			require.Equal(t, tc.want, buf.String())
			if tc.failure == "" {
				require.NoError(t, wait.failure)
			} else {
				require.EqualError(t, wait.failure, tc.failure)
			}
		})
	}

	t.Run("accepted: written as committed, in the answer's format", func(t *testing.T) {
		for _, text := range []bool{false, true} {
			node := &fakeNode{misses: 1}
			var buf bytes.Buffer
			wait := &txWait{clientCtx: waitContext(t, node), app: "idlegpud", timeout: 5 * time.Second}
			o := &txResultOutput{w: &buf, cdc: enc.Codec, yaml: text, wait: wait}
			answer := asJSON(accepted)
			if text {
				answer = asYAML(accepted)
			}
			_, err := o.Write(answer)
			require.NoError(t, err)
			require.NoError(t, wait.failure)
			got := buf.Bytes()
			if text {
				got, err = yaml.YAMLToJSON(got)
				require.NoError(t, err)
			}
			var res sdk.TxResponse
			require.NoError(t, enc.Codec.UnmarshalJSON(got, &res))
			require.Equal(t, int64(7), res.Height)
			require.Equal(t, "0A1B", res.TxHash)
			require.Equal(t, 2, node.lookups)
		}
	})
}
