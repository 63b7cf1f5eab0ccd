package web

import (
	"cmp"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/auction/client/units"
	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
)

// The market's asks table is what a renter chooses by: every free offer's
// price on each lane with its provider's name, reliability and audits, the
// offer's limits, and, for the job being considered (N GPUs for H hours),
// the total it would cost at that ask. It filters and sorts on the server
// (a GET form, so it works without JavaScript) and pages 50 at a time.

// askFilter is the asks form, as typed.
type askFilter struct {
	Model, Region, Lane, MaxPrice, MinReliability, MinMemory string
	MinCPU, MinRAM, MinDisk, MinHours, GPUs, Hours, Sort     string
}

func readAskFilter(q url.Values) askFilter {
	return askFilter{
		Model: q.Get("a_model"), Region: q.Get("a_region"), Lane: q.Get("a_lane"), MaxPrice: q.Get("a_max_price"),
		MinReliability: q.Get("a_min_rel"), MinMemory: q.Get("a_min_mem"), MinCPU: q.Get("a_min_cpu"),
		MinRAM: q.Get("a_min_ram"), MinDisk: q.Get("a_min_disk"), MinHours: q.Get("a_min_hours"),
		GPUs: q.Get("a_gpus"), Hours: q.Get("a_hours"), Sort: q.Get("a_sort"),
	}
}

// askSorts are the orders the table offers, the first the default.
var askSorts = []struct{ Key, Label string }{
	{"price", "price"},
	{"effective", "as clearing ranks (price ÷ reliability)"},
	{"reliability", "reliability"},
	{"memory", "memory per GPU"},
	{"free", "free GPUs"},
	{"duration", "longest job"},
}

// askRow is an ask with the total for the job being considered.
type askRow struct {
	Ask
	// Total is N GPUs × H hours at the ask; Short is true when the offer
	// has fewer than N free GPUs (a split job could still use them).
	Total *sdk.Coin
	Short bool
}

// asksView is the table's rows on this page and where the page stands.
type asksView struct {
	Form    askFilter
	Sorts   []struct{ Key, Label string }
	Models  []string
	Rows    []askRow
	Page    Page
	Problem string
}

// parsed limits; zero means no limit.
type askLimits struct {
	maxPrice      *sdk.Coin
	minRel        uint32
	minMemMiB     uint64
	minCPU        uint32
	minRAMMiB     uint64
	minDiskGiB    uint64
	minSeconds    uint64
	gpus          uint32
	hours         uint64
	model, region string
	lane, sortKey string
	hasJob        bool
}

func (s *Server) parseAskFilter(f askFilter) (askLimits, error) {
	var l askLimits
	num := func(name, v string, bits int) (uint64, error) {
		v = strings.TrimSpace(v)
		if v == "" {
			return 0, nil
		}
		n, err := strconv.ParseUint(v, 10, bits)
		if err != nil {
			return 0, badRequest("%s: want a whole number, got %q", name, v)
		}
		return n, nil
	}
	l.model, l.region, l.lane = strings.TrimSpace(f.Model), strings.ToLower(strings.TrimSpace(f.Region)), strings.TrimSpace(f.Lane)
	if v := strings.ReplaceAll(strings.TrimSpace(f.MaxPrice), " ", ""); v != "" {
		c, err := units.ParsePrice(strings.ToLower(v), s.units.Metadata())
		if err != nil {
			return l, badRequest("price: %v", err)
		}
		l.maxPrice = &c
	}
	if v := strings.TrimSuffix(strings.TrimSpace(f.MinReliability), "%"); strings.TrimSpace(v) != "" {
		pct, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || pct < 0 || pct > 100 {
			return l, badRequest("reliability: a percentage from 0 to 100, got %q", f.MinReliability)
		}
		l.minRel = uint32(pct * 100)
	}
	if v := strings.TrimSpace(f.MinMemory); v != "" {
		mib, err := units.ParseMemoryMiB(v)
		if err != nil {
			return l, badRequest("memory per GPU: %v", err)
		}
		l.minMemMiB = mib
	}
	cpu, err := num("CPU cores per GPU", f.MinCPU, 32)
	if err != nil {
		return l, err
	}
	l.minCPU = uint32(cpu)
	if v := strings.TrimSpace(f.MinRAM); v != "" {
		if l.minRAMMiB, err = units.ParseMemoryMiB(v); err != nil {
			return l, badRequest("host memory per GPU: %v", err)
		}
	}
	if l.minDiskGiB, err = num("disk per GPU (GiB)", f.MinDisk, 64); err != nil {
		return l, err
	}
	minHours, err := num("longest job (hours)", f.MinHours, 32)
	if err != nil {
		return l, err
	}
	l.minSeconds = minHours * 3600
	gpus, err := num("GPUs", f.GPUs, 32)
	if err != nil {
		return l, err
	}
	l.gpus = uint32(gpus)
	if l.hours, err = num("hours", f.Hours, 32); err != nil {
		return l, err
	}
	l.hasJob = l.gpus > 0 && l.hours > 0
	l.sortKey = askSorts[0].Key
	for _, o := range askSorts {
		if o.Key == f.Sort {
			l.sortKey = o.Key
		}
	}
	return l, nil
}

// matches reports whether an ask passes every limit set.
func (l askLimits) matches(a *Ask) bool {
	switch {
	case l.model != "" && a.Model != l.model,
		l.region != "" && !strings.HasPrefix(a.Region, l.region),
		l.lane != "" && a.Lane != l.lane,
		l.maxPrice != nil && (a.Denom != l.maxPrice.Denom || a.Price.GT(l.maxPrice.Amount)),
		a.ReliabilityBps < l.minRel,
		a.MemMiB < l.minMemMiB,
		a.CPUPerGPU < l.minCPU,
		a.RAMMiBPerGPU < l.minRAMMiB,
		a.DiskGiBPerGPU < l.minDiskGiB,
		l.minSeconds > 0 && a.MaxDuration != 0 && a.MaxDuration < l.minSeconds:
		return false
	}
	return true
}

// compare orders two asks by the chosen key, then by price and offer.
func (l askLimits) compare(x, y *Ask) int {
	var c int
	switch l.sortKey {
	case "effective":
		// Clearing's own order: price × 10000 / reliability, exactly.
		c = auctiontypes.CmpEffective(
			auctiontypes.Candidate{Price: x.Price, Reliability: max(x.ReliabilityBps, 1)},
			auctiontypes.Candidate{Price: y.Price, Reliability: max(y.ReliabilityBps, 1)})
	case "reliability":
		c = cmp.Compare(y.ReliabilityBps, x.ReliabilityBps)
	case "memory":
		c = cmp.Compare(y.MemMiB, x.MemMiB)
	case "free":
		c = cmp.Compare(y.Free, x.Free)
	case "duration":
		// 0 is "any length": the longest.
		lx, ly := x.MaxDuration, y.MaxDuration
		if lx == 0 {
			lx = ^uint64(0)
		}
		if ly == 0 {
			ly = ^uint64(0)
		}
		c = cmp.Compare(ly, lx)
	}
	if c != 0 {
		return c
	}
	if c := cmp.Compare(x.Denom, y.Denom); c != 0 {
		return c
	}
	if c := x.Price.BigInt().Cmp(y.Price.BigInt()); c != 0 {
		return c
	}
	return cmp.Compare(x.OfferID, y.OfferID)
}

// asks is the market page's asks table for r.
func (s *Server) asks(r *http.Request, m *Market) asksView {
	v := asksView{Form: readAskFilter(r.URL.Query()), Sorts: askSorts}
	for _, c := range m.ByModel {
		v.Models = append(v.Models, c.Key)
	}
	l, err := s.parseAskFilter(v.Form)
	if err != nil {
		v.Problem = err.Error()
		return v
	}
	// Pointers into the cached market (read only): a market of 10,000
	// offers has 30,000 asks, which a request must not copy.
	var rows []*Ask
	for i := range m.Asks {
		if l.matches(&m.Asks[i]) {
			rows = append(rows, &m.Asks[i])
		}
	}
	if l.sortKey != askSorts[0].Key {
		slices.SortStableFunc(rows, func(x, y *Ask) int { return l.compare(x, y) })
	}
	// The table is a snapshot of the cached market, so an offset is a
	// stable place in it for as long as the page is read.
	from := positiveInt(r.URL.Query().Get("a_from"), 1)
	if from > len(rows) {
		from = 1
	}
	end := min(from-1+listLimit, len(rows))
	for _, a := range rows[from-1 : end] {
		row := askRow{Ask: *a}
		if l.hasJob {
			t := auctiontypes.Due(sdk.NewCoin(a.Denom, a.Price), l.gpus, l.hours*3600)
			row.Total, row.Short = &t, a.Free < int(l.gpus)
		}
		v.Rows = append(v.Rows, row)
	}
	v.Page = Page{Total: uint64(len(rows)), Known: true, From: from, Shown: len(v.Rows)}
	if from > 1 {
		v.Page.First = withParams(r, "a_from", "")
	}
	if end < len(rows) {
		v.Page.Next = withParams(r, "a_from", strconv.Itoa(end+1))
	}
	return v
}
