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
	return chart.Bars(chart.BarOpts{Title: "GPUs by model: leased and free", Format: chartNumber}, bars...)
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
