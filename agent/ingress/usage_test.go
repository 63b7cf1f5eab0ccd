package ingress

import (
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/stretchr/testify/require"
)

// readUsage forwards body through the watcher as the proxy does (in small
// pieces, so lines and objects split across reads) and returns what it
// reported.
func readUsage(t *testing.T, contentType, body string) (got []usage) {
	t.Helper()
	r := watchUsage(io.NopCloser(iotest.OneByteReader(strings.NewReader(body))), contentType, func(u usage) { got = append(got, u) })
	out, err := io.ReadAll(r)
	require.NoError(t, err)
	require.Equal(t, body, string(out), "the body passes unchanged")
	require.NoError(t, r.Close())
	return got
}

func TestUsage(t *testing.T) {
	for _, tc := range []struct {
		name, contentType, body string
		want                    []usage
	}{
		{"a JSON answer", "application/json; charset=utf-8", `{"usage":{"prompt_tokens":12,"completion_tokens":30,"total_tokens":42}}`, []usage{{12, 30}}},
		{"a JSON answer without usage", "application/json", `{"data":[1,2]}`, nil},
		{"not JSON", "application/json", `{"usage":`, nil},
		{"a stream whose last chunk carries usage", "text/event-stream",
			"data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\ndata: {\"choices\":[],\"usage\":{\"prompt_tokens\":7,\"completion_tokens\":3}}\n\ndata: [DONE]\n\n", []usage{{7, 3}}},
		{"running totals per chunk: the last counts", "text/event-stream",
			"data: {\"usage\":{\"prompt_tokens\":7,\"completion_tokens\":1}}\r\n\r\ndata:{\"usage\":{\"prompt_tokens\":7,\"completion_tokens\":2}}\r\n\r\n", []usage{{7, 2}}},
		{"a stream with no usage", "text/event-stream", "data: {\"choices\":[]}\n\n: comment\n\ndata: [DONE]\n\n", nil},
		{"usage in a comment is not usage", "text/event-stream", ": {\"usage\":{\"prompt_tokens\":9}}\n\n", nil},
		{"plain text is not read", "text/plain", `{"usage":{"prompt_tokens":9}}`, nil},
		{"no content type", "", `{"usage":{"prompt_tokens":9}}`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, readUsage(t, tc.contentType, tc.body))
		})
	}
}

// TestUsageBounds: a JSON answer over maxUsageBody, or an event line over
// maxEventLine, passes whole but is not parsed; the stream's later lines
// still are.
func TestUsageBounds(t *testing.T) {
	big := `{"pad":"` + strings.Repeat("x", maxUsageBody) + `","usage":{"prompt_tokens":1,"completion_tokens":1}}`
	require.Nil(t, readUsage(t, "application/json", big))
	long := "data: {\"pad\":\"" + strings.Repeat("x", maxEventLine) + "\",\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":5}}\n\n"
	require.Nil(t, readUsage(t, "text/event-stream", long))
	require.Equal(t, []usage{{2, 3}}, readUsage(t, "text/event-stream", long+"data: {\"usage\":{\"prompt_tokens\":2,\"completion_tokens\":3}}\n\n"))
}

// TestUsageOfACutStream: a stream closed before its end reports the usage
// its chunks carried so far, once.
func TestUsageOfACutStream(t *testing.T) {
	var got []usage
	body := "data: {\"usage\":{\"prompt_tokens\":4,\"completion_tokens\":9}}\n\ndata: {\"choi"
	r := watchUsage(io.NopCloser(strings.NewReader(body)), "text/event-stream", func(u usage) { got = append(got, u) })
	buf := make([]byte, len(body)-3)
	_, err := io.ReadFull(r, buf)
	require.NoError(t, err)
	require.NoError(t, r.Close())
	require.NoError(t, r.Close())
	require.Equal(t, []usage{{4, 9}}, got)
}

func FuzzUsage(f *testing.F) {
	f.Add("text/event-stream", "data: {\"usage\":{\"prompt_tokens\":7,\"completion_tokens\":3}}\n\n")
	f.Add("application/json", `{"usage":{"prompt_tokens":18446744073709551615,"completion_tokens":1}}`)
	f.Add("application/json", `{"usage":null}`)
	f.Fuzz(func(t *testing.T, contentType, body string) {
		var reports int
		r := watchUsage(io.NopCloser(strings.NewReader(body)), contentType, func(usage) { reports++ })
		out, err := io.ReadAll(r)
		if err != nil || string(out) != body {
			t.Fatalf("the body changed: %q, %v", out, err)
		}
		r.Close()
		if reports > 1 {
			t.Fatalf("reported %d times", reports)
		}
	})
}

// TestMeterQuantiles: p50 and p95 are the bounds of the buckets holding
// them, the same on every machine.
func TestMeterQuantiles(t *testing.T) {
	var m Meter
	require.Equal(t, Snapshot{}, m.Snapshot())
	for range 90 {
		m.answered(4 * time.Millisecond) // bucket ≤ 5 ms
	}
	for range 9 {
		m.answered(180 * time.Millisecond) // ≤ 200 ms
	}
	m.answered(2 * time.Minute) // past the last bound
	s := m.Snapshot()
	require.EqualValues(t, 100, s.Requests)
	require.Equal(t, 5*time.Millisecond, s.LatencyP50)
	require.Equal(t, 200*time.Millisecond, s.LatencyP95)
	m.tokens(usage{PromptTokens: ^uint64(0) - 1, CompletionTokens: 1})
	m.tokens(usage{PromptTokens: 5, CompletionTokens: 1})
	s = m.Snapshot()
	require.Equal(t, ^uint64(0), s.PromptTokens, "saturates, never wraps")
	require.EqualValues(t, 2, s.CompletionTokens)
}

func TestKeys(t *testing.T) {
	k1, h1, err := NewKey()
	require.NoError(t, err)
	k2, _, err := NewKey()
	require.NoError(t, err)
	require.NotEqual(t, k1, k2)
	require.True(t, strings.HasPrefix(k1, KeyPrefix))
	require.Len(t, k1, len(KeyPrefix)+43, "32 random bytes, base64url")
	require.Equal(t, h1, HashKey(k1))
	back, err := ParseKeyHash(h1.String())
	require.NoError(t, err)
	require.Equal(t, h1, back)
	_, err = ParseKeyHash("abc")
	require.Error(t, err)
	for auth, want := range map[string]string{"Bearer igk_x": "igk_x", "bearer  igk_y ": "igk_y", "Basic abc": "", "Bearer ": "", "": ""} {
		got, ok := bearer(auth)
		require.Equal(t, want, got, auth)
		require.Equal(t, want != "", ok, auth)
	}
}
