package web

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/scripts/pgtest"
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
func TestPages(t *testing.T) { checkPages(t, newFixture(t, 6, 10, 50)) }

// TestPagesOnPostgres: the same pages and figures with the index on
// PostgreSQL.
func TestPagesOnPostgres(t *testing.T) {
	checkPages(t, newFixtureOn(t, pgtest.DSN(t), 6, 10, 50, 1))
}

func TestMain(m *testing.M) {
	code := m.Run()
	pgtest.Stop()
	os.Exit(code)
}

func checkPages(t *testing.T, f *fixture) {
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
		// Before signing, what the job would meet now. Bronze: provider 0's
		// preemptible ask (0.50) wins and, under second price, is paid
		// provider 1's 0.505; 2 h of one GPU cost 1.01 of the 3.00 escrow.
		{preview("tier=bronze&gpus=1&max_price=1.5usdc/gpu-h"), []string{
			`It would clear at <b>0.505 USDC/GPU-h</b>: <b>1.01 USDC</b> if it runs its whole duration, so 1.99 USDC of the escrow comes back.`,
			`>provider 0</a></td><td class="n">1</td><td class="n">1</td><td class="n">0.50 USDC/GPU-h</td><td class="n">90 %</td>`,
			`So the price can be above the cheapest ask (0.50 USDC/GPU-h)`}},
		// Silver on a market of newcomers: the tier's floor, said before signing.
		{preview("tier=silver&gpus=1&max_price=1.5usdc/gpu-h"), []string{
			`It would not clear now: 60 offer(s) fit this job, but no provider of them may serve silver now: silver needs 95 % reliability and the best of them has 90 %`}},
		// A price below every ask, a region nobody serves: each limit named.
		{preview("tier=bronze&gpus=1&max_price=0.1usdc/gpu-h"), []string{
			"price: 60 offer(s) fit at a higher price; the cheapest asks 0.50 USDC/GPU-h, you offer at most 0.10 USDC/GPU-h"}},
		{preview("tier=bronze&gpus=1&max_price=1.5usdc/gpu-h&region=sa"), []string{
			"region: 60 offer(s) fit outside [sa], in [eu-de-fra1 na-us-va1 as-jp-tyo1]"}},
		{preview("tier=bronze&gpus=1&max_price=0.1usdc/gpu-h&region=sa"), []string{
			"more than one limit: 60 offer(s) fit without your price, memory and region limits together; the cheapest asks 0.50 USDC/GPU-h"}},
	} {
		code, body := f.get(t, tc.path)
		require.Equal(t, http.StatusOK, code, "%s: %s", tc.path, snippet(body))
		for _, w := range tc.want {
			require.Contains(t, body, w, tc.path)
		}
	}
}

// preview is the post page's preview of a 2-hour batch job with the
// given form fields.
func preview(fields string) string {
	return "/post?preview=1&duration=2h&workload=batch&manifest=x&max_relayer_fee=0.05&image=" + imageRef + "&" + fields
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
		// Ids past int64 are not in the index: not a driver error and a 500.
		{"/jobs/18446744073709551615", http.StatusNotFound, "not found"},
		{"/leases/9223372036854775808", http.StatusNotFound, "not found"},
		// The static directory is not listed; its files are served.
		{"/static/", http.StatusNotFound, "404 page not found"},
		{"/static/app.css", http.StatusOK, ".banner"},
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
