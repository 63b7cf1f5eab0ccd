package web

import (
	"fmt"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/scripts/browsertest"
)

// layout is what the browser measured of one page at one width.
type layout struct {
	ScrollWidth int `json:"scrollWidth"`
	InnerWidth  int `json:"innerWidth"`
	// ChartText is the smallest chart text as drawn, in CSS pixels (the
	// font size times the chart's scale); 0 without a chart.
	ChartText float64 `json:"chartText"`
	// ChartTextMax is the largest, so a chart drawn for a narrow box is
	// not blown up in a wide one.
	ChartTextMax float64 `json:"chartTextMax"`
	Charts       int     `json:"charts"`
	// ChartsScrolled counts charts wider than a box they sit in: a chart
	// reflows to its box rather than scrolling inside it.
	ChartsScrolled int `json:"chartsScrolled"`
}

const measureLayout = `(() => {
  const d = document.documentElement;
  let min = 0, max = 0, charts = 0, scrolled = 0;
  for (const svg of document.querySelectorAll('svg.ch')) {
    const vb = svg.viewBox.baseVal, w = svg.getBoundingClientRect().width;
    if (!vb || !vb.width || !w) continue;
    charts++;
    for (const t of svg.querySelectorAll('text')) {
      const px = parseFloat(getComputedStyle(t).fontSize) * w / vb.width;
      if (px > 0 && (min === 0 || px < min)) min = px;
      max = Math.max(max, px);
    }
    for (let a = svg.parentElement; a && a !== document.body; a = a.parentElement) {
      if (a.scrollWidth > a.clientWidth + 1) { scrolled++; break; }
    }
  }
  return {scrollWidth: d.scrollWidth, innerWidth: window.innerWidth, chartText: min, chartTextMax: max, charts, chartsScrolled: scrolled};
})()`

// TestLayoutInTheBrowser lays every page out in headless Chromium at a
// phone's width (390 px) and a desktop's (1400 px): the page never scrolls
// sideways (wide tables scroll inside their own box), and charts reflow to
// their box: none scrolls, and its text is drawn between 9 and 20 px. Screenshots of each go to build/screenshots.
func TestLayoutInTheBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	b := browsertest.Start(t)
	f := newFixture(t, 6, 10, 50)
	srv := httptest.NewServer(f.srv)
	defer srv.Close()

	pages := map[string]string{
		"market":    "/",
		"jobs":      "/jobs?renter=" + f.renters[0],
		"job":       "/jobs/2",
		"lease":     "/leases/2",
		"providers": "/providers",
		"provider":  "/providers/" + f.providers[0],
		"network":   "/network",
		"post":      "/post?preview=1&gpus=2&duration=2h&max_price=1.5usdc/gpu-h&tier=silver&workload=batch&manifest=x&max_relayer_fee=0.05&image=" + imageRef,
		"withdraw":  "/withdraw?account=" + f.renters[0],
		"notfound":  "/no-such-page",
	}
	p := b.NewPage(t, nil)
	p.AllowErrors("404 Not Found: GET " + srv.URL + "/no-such-page")
	for _, width := range []int64{390, 1400} {
		p.SetViewport(width, 900)
		for name, path := range pages {
			p.Navigate(srv.URL + path)
			p.WaitVisible("main")
			var l layout
			p.Eval(measureLayout, &l)
			where := fmt.Sprintf("%s at %d px", path, width)
			require.Equal(t, int(width), l.InnerWidth, where)
			require.LessOrEqual(t, l.ScrollWidth, l.InnerWidth, "%s: the page scrolls sideways", where)
			if l.Charts > 0 {
				require.GreaterOrEqual(t, l.ChartText, 9.0, "%s: chart text drawn at %.1f px", where, l.ChartText)
				require.LessOrEqual(t, l.ChartTextMax, 20.0, "%s: chart text blown up to %.1f px", where, l.ChartTextMax)
				require.Zero(t, l.ChartsScrolled, "%s: a chart scrolls inside its box instead of reflowing", where)
			}
			if name == "provider" || name == "lease" || name == "market" {
				require.Positive(t, l.Charts, "%s has charts", where)
			}
			p.Screenshot(fmt.Sprintf("layout-%s-%d", name, width))
		}
	}
}

// TestPagingInTheBrowser: a renter with 60 jobs follows the jobs list's
// "next page" link in Chromium and reaches jobs 51–60, told how many there
// are, while the ended leases' list stays on its first page.
func TestPagingInTheBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	b := browsertest.Start(t)
	f := newFixtureJobs(t, 2, 2, 130, 60)
	srv := httptest.NewServer(f.srv)
	defer srv.Close()
	p := b.NewPage(t, nil)
	p.Navigate(srv.URL + "/jobs?renter=" + f.renters[0])
	p.WaitText("#jobs-pager", "1–50 of 60")
	require.Contains(t, p.Text("#ended-pager"), "1–50 of 65")
	p.Click("#jobs-pager a[rel=next]")
	p.WaitText("#jobs-pager", "51–60 of 60")
	require.Contains(t, p.Text("#jobs-pager"), "first page")
	require.NotContains(t, p.Text("#jobs-pager"), "next page")
	var rows int
	p.Eval(`document.querySelectorAll("#jobs tbody tr").length`, &rows)
	require.Equal(t, 10, rows)
	require.Contains(t, p.Text("#ended-pager"), "1–50 of 65", "paging the jobs keeps the ended leases on their page")
	p.Screenshot("paging-jobs-2")
}
