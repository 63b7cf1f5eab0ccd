package web

import (
	"html/template"
	"strconv"
	"strings"

	"github.com/idlegpu/idlegpu/cmd/idlegpu-web/internal/chart"
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
	return chart.Bars(chart.BarOpts{Title: "GPUs by model: leased and free", Format: func(v float64) string {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}}, bars...)
}

// pct formats a 0..100 value for chart axes.
func pct(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) + " %" }

// chartNumber writes a chart value with at most two decimals.
func chartNumber(v float64) string {
	s := strconv.FormatFloat(v, 'f', 2, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}
