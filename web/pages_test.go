package web

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// get serves one request and returns its status and body.
func (f *fixture) get(t testing.TB, path string) (int, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	f.srv.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	body, err := io.ReadAll(rec.Result().Body)
	require.NoError(t, err)
	return rec.Code, string(body)
}

// do serves one request and returns the response.
func (f *fixture) do(t testing.TB, path string) *http.Response {
	t.Helper()
	rec := httptest.NewRecorder()
	f.srv.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	return rec.Result()
}

// TestPages renders every page over the real app's state (6 providers × 10
// offers) and an index of 50 ended leases, and checks the figures each page
// must show.
func TestPages(t *testing.T) {
	f := newFixture(t, 6, 10, 50)
	p0 := f.providers[0]
	for _, tc := range []struct {
		path string
		want []string
	}{
		// 60 GPUs offered, none leased; provider 0's H100s are the cheapest
		// at 1.00 USDC on demand, 0.50 preemptible (Terms halves it).
		{"/", []string{`<b>60</b><span>GPUs offered</span>`, `<b>0</b><span>leased</span>`, "NVIDIA H100 80GB HBM3", "0.50 USDC/GPU-h", "1.00 USDC/GPU-h", "eu-de-fra1", "on demand", "preemptible", "<svg"}},
		{"/providers", []string{"provider 0", "provider 5", "eu-de-fra1"}},
		{"/providers/" + p0, []string{"provider 0", `id="earned"`, "<svg", "ran to its end"}},
		{"/jobs?renter=" + f.renters[0], []string{"Ended leases", "ran to its end"}},
		// Job 1 is open on chain (its bid window has not closed); job 2
		// and lease 2 exist only in the index, and are shown from it.
		{"/jobs/1", []string{`id="job-status">open`, "2.00 USDC/GPU-h"}},
		{"/jobs/2", []string{`id="job-status">completed`, "1.01 USDC/GPU-h", `id="escrow">1.01 USDC`}},
		{"/leases/2", []string{"proven", "95 %", "550 W", "555.6 Wh", `id="lease-paid">1.01 USDC`}},
		{"/network", []string{"Indexed to block 1.", "evm_chain_id", "take_rate_bps"}},
		{"/post", []string{`id="post-job"`, "NVIDIA H100 80GB HBM3"}},
		// The withdrawal form names the bridged denom and x/bridge's minimum.
		{"/withdraw", []string{`data-wallet-action="withdraw"`, "The least you can withdraw is 1.00 USDC"}},
		{"/withdraw?account=" + f.renters[0], []string{`id="withdraw-balance"`, `id="withdraw-cumulative">0.00 USDC`}},
		// 2 GPUs × 2 h at most 1.5 USDC: 6 USDC escrow, 0.05 relayer cap.
		{"/post?preview=1&gpus=2&duration=2h&max_price=1.5usdc/gpu-h&tier=silver&workload=batch&manifest=x&max_relayer_fee=0.05&image=" + imageRef,
			[]string{"locks 6.00 USDC in escrow", "plus at most 0.05 USDC for the relayer: 6.05 USDC in all"}},
	} {
		code, body := f.get(t, tc.path)
		require.Equal(t, http.StatusOK, code, "%s: %s", tc.path, snippet(body))
		for _, w := range tc.want {
			require.Contains(t, body, w, tc.path)
		}
	}
}

const imageRef = "ghcr.io/acme/train@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

// TestPageErrors: what the chain does not have is 404, bad input 400, with
// the reason on the page.
func TestPageErrors(t *testing.T) {
	f := newFixture(t, 1, 1, 0)
	for _, tc := range []struct {
		path string
		code int
		want string
	}{
		{"/jobs/99", http.StatusNotFound, "not found"},
		{"/leases/x", http.StatusBadRequest, `&#34;x&#34; is not an id`},
		{"/jobs?renter=0x12", http.StatusBadRequest, "is not a 20-byte 0x address"},
		{"/providers/nobody", http.StatusBadRequest, "neither an idle"},
		{"/post?preview=1&gpus=0", http.StatusOK, "GPUs: want a whole number, at least 1"},
		// An exponent is not a price: blamed on the price, not on the fee.
		{"/post?preview=1&gpus=2&duration=2h&max_price=1e309usdc/gpu-h&tier=silver&workload=batch&manifest=x&max_relayer_fee=0.05&image=" + imageRef,
			http.StatusOK, "maximum price &#34;1e309usdc/gpu-h&#34;: &#34;e309usdc&#34; is not a denom of this chain"},
	} {
		code, body := f.get(t, tc.path)
		require.Equal(t, tc.code, code, "%s: %s", tc.path, snippet(body))
		require.Contains(t, body, tc.want, tc.path)
	}
}

func snippet(s string) string {
	if i := strings.Index(s, "<main>"); i >= 0 {
		s = s[i:]
	}
	return s[:min(len(s), 600)]
}
