package endpoint

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestParseManifestIsStrict: anything another JSON reader could read
// differently from the agent is refused, so the bytes the renter committed
// to on chain mean one thing.
func TestParseManifestIsStrict(t *testing.T) {
	for _, c := range []struct{ name, in, err string }{
		{"trailing value", `{"command":["x"]} {}`, "trailing data"},
		{"trailing garbage", `{"command":["x"]}x`, "trailing data"},
		{"duplicate key", `{"command":["x"],"command":["y"]}`, `duplicate key "command"`},
		{"case-folded key", `{"command":["x"],"Command":["y"]}`, `unknown field "Command"`},
		{"duplicate env", `{"command":["x"],"env":{"A":"1","A":"2"}}`, `duplicate key "A"`},
		{"case-folded env", `{"command":["x"],"env":{"path":"1","PATH":"2"}}`, `duplicate key "PATH"`},
		{"NUL in env", `{"command":["x"],"env":{"A":"a\u0000b"}}`, "NUL"},
		{"NUL in command", `{"command":["x\u0000"]}`, "NUL"},
		{"invalid UTF-8", "{\"command\":[\"\xff\"]}", "UTF-8"},
		{"null env", `{"command":["x"],"env":null}`, "env"},
	} {
		_, err := ParseManifest([]byte(c.in))
		require.ErrorContains(t, err, c.err, c.name)
	}
	m, err := ParseManifest([]byte(" {\"env\":{\"A\":\"1\"},\"command\":[\"sh\"]}\n"))
	require.NoError(t, err)
	require.Equal(t, Manifest{Command: []string{"sh"}, Env: map[string]string{"A": "1"}}, m)
}

// FuzzParseManifest: whatever ParseManifest accepts, the standard decoder
// reads the same way, and it survives a round trip.
func FuzzParseManifest(f *testing.F) {
	for _, s := range []string{`{"command":["python","train.py"],"env":{"WANDB_API_KEY":"secret"}}`, `{"command":["x"]} {}`,
		`{"command":["x"],"command":["y"]}`, `{"command":["x"],"env":{"path":"1","PATH":"2"}}`, `{"command":["x\u0000"]}`, `[]`, `{`,
		`{"command":["sh"],"inputs":[{"url":"https://h/t.csv","sha256":"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad","path":"data/t.csv"}]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := ParseManifest(b)
		if err != nil {
			return
		}
		var std Manifest
		require.NoError(t, json.Unmarshal(b, &std))
		if len(std.Env) == 0 {
			std.Env = nil
		}
		if len(std.Inputs) == 0 {
			std.Inputs = nil
		}
		require.Equal(t, std, m)
		for k, v := range m.Env {
			require.NotContains(t, k+v, "\x00")
			for k2 := range m.Env {
				require.True(t, k == k2 || !strings.EqualFold(k, k2))
			}
		}
		again, err := json.Marshal(m)
		require.NoError(t, err)
		m2, err := ParseManifest(again)
		require.NoError(t, err)
		require.Equal(t, m, m2)
	})
}
