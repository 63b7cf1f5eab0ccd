package web

import (
	"context"
	"html/template"
	"net/http"
	"slices"
	"time"

	sdkmath "cosmossdk.io/math"

	"github.com/idlegpu/idlegpu/indexer"
	"github.com/idlegpu/idlegpu/web/chart"
)

// History the chain does not keep comes from the index: prices over time,
// settled epochs with their proofs' figures, reliability over time,
// earnings, slashes and blocks.

// priceChart: clearing prices per model since a time, one series per model
// (the market's price denom; a model cleared in two denoms shows the one it
// cleared in last).
func (s *Server) priceChart(r *http.Request, since time.Time) (template.HTML, []string, error) {
	ctx := r.Context()
	models, err := s.db.Models(ctx)
	if err != nil {
		return "", nil, err
	}
	var series []chart.Series
	var names []string
	denom := ""
	for _, m := range models {
		pts, err := s.db.PriceHistory(ctx, m.Model, since, maxPricePoints, 0)
		if err != nil {
			return "", nil, err
		}
		ser := chart.Series{Name: m.Model}
		for _, c := range pts {
			if c.Denom != m.LastDenom {
				continue
			}
			denom = c.Denom
			ser.Points = append(ser.Points, chart.Point{X: c.Time, Y: s.units.Float(sdkmath.NewInt(c.Price), c.Denom)})
		}
		if len(ser.Points) > 0 {
			series = append(series, ser)
			names = append(names, m.Model)
		}
	}
	sym := s.units.Symbol(denom)
	format := func(v float64) string { return trimFloat(v) + " " + sym + "/GPU-h" }
	return reflow(func(w int) template.HTML {
		return chart.Line(chart.LineOpts{Title: "Clearing price per GPU-hour by model", YFormat: format, Width: w}, series...)
	}), names, nil
}

// epochCharts: per GPU, the proofs' utilisation, memory, power and energy
// over the lease's epochs.
type epochCharts struct {
	Util, Mem, Power, Energy template.HTML
}

func leaseCharts(epochs []indexer.Epoch) epochCharts {
	byGPU := map[string]*[4]chart.Series{}
	var order []string
	for _, e := range epochs {
		for _, g := range e.GPUs {
			s, ok := byGPU[g.UUID]
			if !ok {
				s = &[4]chart.Series{}
				for i := range s {
					s[i].Name = Short(g.UUID)
				}
				byGPU[g.UUID] = s
				order = append(order, g.UUID)
			}
			s[0].Points = append(s[0].Points, chart.Point{X: e.Time, Y: float64(g.UtilAvgBps) / 100})
			s[1].Points = append(s[1].Points, chart.Point{X: e.Time, Y: float64(g.MemUsedMaxMiB) / 1024})
			s[2].Points = append(s[2].Points, chart.Point{X: e.Time, Y: float64(g.PowerAvgMW) / 1000})
			s[3].Points = append(s[3].Points, chart.Point{X: e.Time, Y: float64(g.EnergyMJ) / 3.6e6})
		}
	}
	slices.Sort(order)
	pick := func(i int) []chart.Series {
		out := make([]chart.Series, 0, len(order))
		for _, u := range order {
			out = append(out, byGPU[u][i])
		}
		return out
	}
	line := func(title string, format func(float64) string, series []chart.Series) template.HTML {
		return reflow(func(w int) template.HTML {
			return chart.Line(chart.LineOpts{Title: title, YFormat: format, Width: w}, series...)
		})
	}
	unit := func(u string) func(float64) string { return func(v float64) string { return trimFloat(v) + " " + u } }
	return epochCharts{
		Util:   line("GPU utilisation per epoch (average)", pct, pick(0)),
		Mem:    line("GPU memory used per epoch (peak)", unit("GiB"), pick(1)),
		Power:  line("GPU power per epoch (average)", unit("W"), pick(2)),
		Energy: line("GPU energy per epoch", unit("Wh"), pick(3)),
	}
}

// reliabilityChart: the provider's reliability after each change.
func reliabilityChart(reps []indexer.Reputation) template.HTML {
	ser := chart.Series{Name: "reliability"}
	for _, r := range reps {
		ser.Points = append(ser.Points, chart.Point{X: r.Time, Y: float64(r.ReliabilityBps) / 100})
	}
	return reflow(func(w int) template.HTML {
		return chart.Line(chart.LineOpts{Title: "Reliability after each change", YFormat: pct, Step: true, YFromMin: true, Width: w}, ser)
	})
}

// earningsChart: net earnings per day, one series per denom.
func (s *Server) earningsChart(es []indexer.Earning) (template.HTML, map[string]int64) {
	byDenom := map[string]*chart.Series{}
	var denoms []string
	totals := map[string]int64{}
	for _, e := range es {
		ser, ok := byDenom[e.Denom]
		if !ok {
			ser = &chart.Series{Name: s.units.Symbol(e.Denom)}
			byDenom[e.Denom] = ser
			denoms = append(denoms, e.Denom)
		}
		ser.Points = append(ser.Points, chart.Point{X: e.Start, Y: s.units.Float(sdkmath.NewInt(e.Net), e.Denom)})
		totals[e.Denom] += e.Net
	}
	slices.Sort(denoms)
	series := make([]chart.Series, 0, len(denoms))
	for _, d := range denoms {
		series = append(series, *byDenom[d])
	}
	// The axis names its unit when there is one denom; with several, each
	// series (and the legend) is named by its symbol.
	unit := ""
	if len(denoms) == 1 {
		unit = " " + s.units.Symbol(denoms[0])
	}
	format := func(v float64) string { return trimFloat(v) + unit }
	return reflow(func(w int) template.HTML {
		return chart.Columns(chart.ColumnOpts{Title: "Net earnings per day (after the protocol's take)", YFormat: format, Width: w}, series...)
	}), totals
}

// earnedText writes per-denom totals.
func (s *Server) earnedText(totals map[string]int64) string {
	denoms := make([]string, 0, len(totals))
	for d := range totals {
		denoms = append(denoms, d)
	}
	slices.Sort(denoms)
	out := ""
	for i, d := range denoms {
		if i > 0 {
			out += ", "
		}
		out += s.units.Amount(sdkmath.NewInt(totals[d]), d)
	}
	if out == "" {
		return "0"
	}
	return out
}

func trimFloat(v float64) string {
	return template.HTMLEscapeString(chartNumber(v))
}

// latestBlocks for the network page.
func (s *Server) latestBlocks(ctx context.Context, n int) ([]indexer.Block, error) {
	return s.db.Blocks(ctx, n, 0)
}

// maxPricePoints bounds one model's clearings read for the price chart
// (the chart draws at most two points per pixel column anyway).
const maxPricePoints = 20_000

// maxEpochs bounds the epochs a lease page lists.
const maxEpochs = 2_000
