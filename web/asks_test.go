package web

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestAsks: the asks table shows what a renter decides by (the provider's
// name, its reliability from its record, its audits, the offer's limits,
// the total for the job in mind) and filters, sorts and pages every free
// offer, not just the first few.
func TestAsks(t *testing.T) {
	// 6 providers × 10 one-GPU offers, each on demand, preemptible and reserved;
	// provider p's latest indexed reliability is 90.4x % (lease 42+p ended
	// last for it), provider 1's the highest (90.49 %).
	f := newFixture(t, 6, 10, 50)
	asks := func(q string) string {
		t.Helper()
		code, body := f.get(t, "/?"+q)
		require.Equal(t, http.StatusOK, code, snippet(body))
		return section(t, body, `<table id="asks">`, `<div id="asks-pager">`) + section(t, body, `<div id="asks-pager">`, `</div>`)
	}
	rows := func(table string) []string {
		return strings.Split(section(t, table, "<tbody>", "</tbody>"), "</tr>")[:strings.Count(table, "</tr>")-1]
	}

	all := asks("")
	require.Contains(t, all, "1–50 of 180", "60 offers × 3 lanes, all with a free GPU")
	first := rows(all)[0]
	for _, want := range []string{">provider 0</a>", "90.48 %", "none yet", "preemptible", "0.50 USDC/GPU-h", "79.6 GiB", "eu-de-fra1"} {
		require.Contains(t, first, want)
	}

	l40s := asks("a_model=NVIDIA+L40S&a_lane=preemptible")
	require.Contains(t, l40s, "1–10 of 10")
	for _, r := range rows(l40s) {
		require.Contains(t, r, "NVIDIA L40S")
		require.Contains(t, r, "preemptible")
	}

	// 2 GPUs for 3 hours at provider 0's preemptible 0.50: 3.00 USDC, but
	// each offer has one GPU.
	job := asks("a_gpus=2&a_hours=3")
	require.Contains(t, rows(job)[0], `<td class="n">3.00 USDC <span class="hint">only 1 free</span></td>`)

	byRel := asks("a_sort=reliability")
	require.Contains(t, rows(byRel)[0], ">provider 1</a>")
	require.Contains(t, rows(byRel)[0], "90.49 %")

	none := asks("a_min_rel=95%25")
	require.Contains(t, none, "No ask matches.")
	require.Contains(t, none, "0 in all")

	next := asks("a_from=51")
	require.Contains(t, next, "51–100 of 180")
	require.Contains(t, next, "first page")

	code, body := f.get(t, "/?a_min_rel=lots")
	require.Equal(t, http.StatusOK, code)
	require.Contains(t, body, `id="asks-problem">reliability: a percentage from 0 to 100, got &#34;lots&#34;`)
}
