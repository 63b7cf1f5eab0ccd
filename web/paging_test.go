package web

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/cosmos/gogoproto/proto"
	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/scripts/pgtest"

	settlementtypes "github.com/idlegpu/idlegpu/x/settlement/types"

	"github.com/idlegpu/idlegpu/indexer"
)

var (
	jobLinkRe   = regexp.MustCompile(`<td class="n"><a href="/jobs/(\d+)">`)
	leaseLinkRe = regexp.MustCompile(`<td class="n"><a href="/leases/(\d+)">`)
)

// section is the part of body between two markers.
func section(t *testing.T, body, from, to string) string {
	t.Helper()
	i := regexp.MustCompile(regexp.QuoteMeta(from)).FindStringIndex(body)
	require.NotNil(t, i, "no %q", from)
	rest := body[i[1]:]
	j := regexp.MustCompile(regexp.QuoteMeta(to)).FindStringIndex(rest)
	require.NotNil(t, j, "no %q after %q", to, from)
	return rest[:j[0]]
}

func ids(t *testing.T, re *regexp.Regexp, s string) []uint64 {
	var out []uint64
	for _, m := range re.FindAllStringSubmatch(s, -1) {
		id, err := strconv.ParseUint(m[1], 10, 64)
		require.NoError(t, err)
		out = append(out, id)
	}
	return out
}

// nextLink is the href of a pager's next-page link ("" when none).
func nextLink(pager string) string {
	m := regexp.MustCompile(`<a href="([^"]+)" rel="next">`).FindStringSubmatch(pager)
	if m == nil {
		return ""
	}
	return html.UnescapeString(m[1])
}

// TestJobsPaging: a renter with 60 jobs on chain and 65 ended leases in
// the index reaches every one of them, a page of 50 at a time, told how
// many there are; paging one list keeps the others where they are, and
// leases indexed between two pages do not shift the second.
func TestJobsPaging(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) { checkJobsPaging(t, newFixtureJobs(t, 2, 2, 130, 60)) })
	t.Run("postgres", func(t *testing.T) { checkJobsPaging(t, newFixtureOn(t, pgtest.DSN(t), 2, 2, 130, 60)) })
}

func checkJobsPaging(t *testing.T, f *fixture) {
	renter := f.renters[0]
	code, body := f.get(t, "/jobs?renter="+renter)
	require.Equal(t, http.StatusOK, code, snippet(body))

	jobsPager := section(t, body, `<div id="jobs-pager">`, `</div>`)
	require.Contains(t, jobsPager, "1–50 of 60")
	jobs := ids(t, jobLinkRe, section(t, body, `<table id="jobs">`, `</table>`))
	require.Len(t, jobs, 50)
	require.Equal(t, uint64(60), jobs[0], "newest first")

	endedPager := section(t, body, `<div id="ended-pager">`, `</div>`)
	require.Contains(t, endedPager, "1–50 of 65")
	ended := ids(t, leaseLinkRe, section(t, body, `<table class="leases ended">`, `</table>`))
	require.Len(t, ended, 50)

	// New ended leases of this renter arrive before the next page is read.
	f.indexEndedLeases(t, renter, 1001, 3)

	// The next page of jobs: the last ten, counted, with the ended list
	// left on its first page.
	code, body = f.get(t, nextLink(jobsPager))
	require.Equal(t, http.StatusOK, code, snippet(body))
	page2 := section(t, body, `<div id="jobs-pager">`, `</div>`)
	require.Contains(t, page2, "51–60 of 60")
	require.Contains(t, page2, "first page")
	require.Empty(t, nextLink(page2), "no page after the last")
	rest := ids(t, jobLinkRe, section(t, body, `<table id="jobs">`, `</table>`))
	require.Len(t, rest, 10)
	require.Equal(t, uint64(10), rest[0])
	require.Equal(t, uint64(1), rest[9])

	// The next page of ended leases starts right after the first page's
	// last lease, whatever was indexed since.
	code, body = f.get(t, nextLink(endedPager))
	require.Equal(t, http.StatusOK, code, snippet(body))
	more := ids(t, leaseLinkRe, section(t, body, `<table class="leases ended">`, `</table>`))
	require.Len(t, more, 15)
	require.Less(t, more[0], ended[49])
	seen := map[uint64]bool{}
	for _, id := range append(ended, more...) {
		require.False(t, seen[id], "lease %d shown twice", id)
		seen[id] = true
	}
	// The count is today's: the three new leases are on the first page.
	require.Contains(t, section(t, body, `<div id="ended-pager">`, `</div>`), "51–65 of 68")
}

// indexEndedLeases indexes n more ended leases of renter (the index's
// leases from number i on), in one block after the index's newest.
func (f *fixture) indexEndedLeases(t *testing.T, renter string, i, n int) {
	t.Helper()
	ctx := context.Background()
	h, err := f.db.Cursor(ctx)
	require.NoError(t, err)
	b := indexer.BlockData{Height: h + 1, Time: time.Now(), Proposer: "A1"}
	var events []proto.Message
	var proofs []settlementtypes.ExecutionProof
	for k := i; k < i+n; k++ {
		ev, proof := f.endedLease(k, renter, b.Time)
		events = append(events, ev...)
		proofs = append(proofs, proof)
	}
	b.Txs = []indexer.TxData{{Hash: fmt.Sprintf("%064X", b.Height), Msgs: []proto.Message{&settlementtypes.MsgSubmitProofs{Proofs: proofs}}, Events: events}}
	require.NoError(t, f.db.IndexBlock(ctx, b))
}

// TestProviderPaging: a provider with 60 GPUs and offers shows all of
// them, 50 a page, counted.
func TestProviderPaging(t *testing.T) {
	f := newFixture(t, 1, 60, 0)
	code, body := f.get(t, "/providers/"+f.providers[0])
	require.Equal(t, http.StatusOK, code, snippet(body))
	for _, list := range []string{"gpus", "offers"} {
		pager := section(t, body, `<div id="`+list+`-pager">`, `</div>`)
		require.Contains(t, pager, "1–50 of 60", list)
		code, next := f.get(t, nextLink(pager))
		require.Equal(t, http.StatusOK, code, snippet(next))
		require.Contains(t, section(t, next, `<div id="`+list+`-pager">`, `</div>`), "51–60 of 60", list)
	}
}
