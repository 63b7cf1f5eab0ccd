package web

import (
	"encoding/base64"
	"net/http"
	"net/url"
	"strconv"

	"github.com/cosmos/cosmos-sdk/types/query"

	"github.com/idlegpu/idlegpu/indexer"
)

// Every list is paged newest first, listLimit rows a page, with a stable
// cursor: the node's next key for what the node lists, the last id shown
// for what the index lists (new rows arriving do not shift a page). A page
// says how many rows the whole list has and links to the next page and
// back to the first. Each list on a page has its own cursor parameter, so
// paging one list keeps the others where they are.

// Page is where one page of a list stands.
type Page struct {
	// Total is the whole list's length; Known is false where it could not
	// be counted (a node asked for a later page does not count).
	Total uint64
	Known bool
	// From is the 1-based position of the page's first row; Shown its rows.
	From, Shown int
	// Next is the next page's URL ("" on the last page); First the first
	// page's ("" on the first page).
	Next, First string
}

// To is the position of the page's last row.
func (p Page) To() int { return p.From + p.Shown - 1 }

// withParams is r's URL with the given query parameters set ("" removes).
func withParams(r *http.Request, kv ...string) string {
	q := r.URL.Query()
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == "" {
			q.Del(kv[i])
		} else {
			q.Set(kv[i], kv[i+1])
		}
	}
	u := url.URL{Path: r.URL.Path, RawQuery: q.Encode()}
	return u.String()
}

// The parameters that carry a list's place: its cursor, the position of
// the page's first row and the total counted on the first page.
func cursorParams(list string) (cursor, from, total string) {
	return list + "_after", list + "_from", list + "_total"
}

// nodePageRequest is the node's page request for the list named list:
// newest first, counted on the first page.
func nodePageRequest(r *http.Request, list string) (*query.PageRequest, error) {
	cursor, _, _ := cursorParams(list)
	req := &query.PageRequest{Limit: listLimit, Reverse: true}
	if k := r.URL.Query().Get(cursor); k != "" {
		key, err := base64.RawURLEncoding.DecodeString(k)
		if err != nil || len(key) == 0 {
			return nil, badRequest("%s: not a page key", cursor)
		}
		req.Key = key
	} else {
		req.CountTotal = true
	}
	return req, nil
}

// nodePage is where the node's page of list stands.
func nodePage(r *http.Request, list string, res *query.PageResponse, shown int) Page {
	cursor, fromParam, totalParam := cursorParams(list)
	p := Page{From: 1, Shown: shown}
	q := r.URL.Query()
	if q.Get(cursor) == "" {
		if res != nil {
			p.Total, p.Known = res.Total, true
		}
	} else {
		p.First = withParams(r, cursor, "", fromParam, "", totalParam, "")
		p.From = positiveInt(q.Get(fromParam), 1)
		if t, err := strconv.ParseUint(q.Get(totalParam), 10, 64); err == nil {
			p.Total, p.Known = t, true
		}
	}
	if res != nil && len(res.NextKey) > 0 {
		total := ""
		if p.Known {
			total = strconv.FormatUint(p.Total, 10)
		}
		p.Next = withParams(r, cursor, base64.RawURLEncoding.EncodeToString(res.NextKey),
			fromParam, strconv.Itoa(p.From+shown), totalParam, total)
	}
	return p
}

// indexCursor is the id below which the index's page of list starts (0:
// the first page).
func indexCursor(r *http.Request, list string) (uint64, error) {
	cursor, _, _ := cursorParams(list)
	v := r.URL.Query().Get(cursor)
	if v == "" {
		return 0, nil
	}
	id, err := strconv.ParseUint(v, 10, 64)
	if err != nil || id == 0 {
		return 0, badRequest("%s: %q is not an id", cursor, v)
	}
	return id, nil
}

// indexPage is where the index's page of list stands: lastID is the
// smallest id shown, and the page is full when more may follow.
func indexPage(r *http.Request, list string, total int64, shown int, lastID uint64) Page {
	cursor, fromParam, _ := cursorParams(list)
	p := Page{Total: uint64(max(total, 0)), Known: true, From: 1, Shown: shown}
	if r.URL.Query().Get(cursor) != "" {
		p.First = withParams(r, cursor, "", fromParam, "")
		p.From = positiveInt(r.URL.Query().Get(fromParam), 1)
	}
	if shown == listLimit && uint64(p.From+shown-1) < p.Total {
		p.Next = withParams(r, cursor, strconv.FormatUint(lastID, 10), fromParam, strconv.Itoa(p.From+shown))
	}
	return p
}

func positiveInt(s string, def int) int {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return def
	}
	return n
}

// endedLeases is the index's page of the ended leases f selects (renter or
// provider), for the list named list, with where the page stands.
func (s *Server) endedLeases(r *http.Request, list string, f indexer.LeaseFilter) ([]indexer.Lease, Page, error) {
	before, err := indexCursor(r, list)
	if err != nil {
		return nil, Page{}, err
	}
	ended := true
	f.Ended, f.Before, f.Limit = &ended, before, listLimit
	rows, err := s.db.Leases(r.Context(), f)
	if err != nil {
		return nil, Page{}, err
	}
	total, err := s.db.CountLeases(r.Context(), f)
	if err != nil {
		return nil, Page{}, err
	}
	var last uint64
	if n := len(rows); n > 0 {
		last = rows[n-1].ID
	}
	return rows, indexPage(r, list, total, len(rows), last), nil
}
