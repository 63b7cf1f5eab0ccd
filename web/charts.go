package web

import (
	"html/template"
	"math"
	"strconv"
	"strings"

	"github.com/idlegpu/idlegpu/web/chart"
)

// capacityBars: per model, GPUs leased and free, stacked.
func capacityBars(cs []Capacity) template.HTML {
	bars := make([]chart.Bar, 0, len(cs))
	for _, c := range cs {
		bars = append(bars, chart.Bar{Label: c.Key, Parts: []chart.Part{
			{Name: "leased", Value: float64(c.Leased)},
			{Name: "free", Value: float64(c.Free())},
		}})
	}
	return reflow(func(w int) template.HTML {
		return chart.Bars(chart.BarOpts{Title: "GPUs by model: leased and free", Format: chartNumber, Width: w}, bars...)
	})
}

// narrowChart is the viewBox width of a chart drawn for a narrow box: a
// phone's 390 px leaves a main column of about 360 px, so the chart's
// 11-12 px text is drawn at its size instead of scaled down to 6 px.
const narrowChart = 360

// reflow draws a chart twice, at the default width and at narrowChart, so
// that its ticks, labels and legend are laid out for the width it is shown
// at; app.css shows the one that fits its box (a container query).
func reflow(draw func(width int) template.HTML) template.HTML {
	return template.HTML(`<div class="reflow"><div class="chart-wide">`) + draw(0) +
		template.HTML(`</div><div class="chart-narrow">`) + draw(narrowChart) + template.HTML(`</div></div>`)
}

// pct formats a 0..100 value for chart axes.
func pct(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) + " %" }

// chartNumber writes a value with four significant digits at most (and at
// most six decimals: the base unit of a 6-decimal currency), trimmed.
func chartNumber(v float64) string {
	decimals := 0
	if a := math.Abs(v); a > 0 && a < 1000 {
		decimals = min(6, 3-int(math.Floor(math.Log10(a))))
	}
	s := strconv.FormatFloat(v, 'f', decimals, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}
