package chart

import (
	"html/template"
	"math"
	"strings"
	"time"
)

// LineOpts configures Line.
type LineOpts struct {
	// Title names the chart for screen readers and as its tooltip.
	Title string
	// Width and Height are the viewBox size; zero means 720×280. The chart scales to its container.
	Width, Height int
	// YFormat formats Y values on the axis and in tooltips, e.g. "1.50 USDC/GPU-h" or "85 %".
	// Nil prints plain numbers.
	YFormat func(float64) string
	// YFromMin starts the Y axis near the smallest value instead of at zero.
	YFromMin bool
	// Step draws each value as holding until the next point, as for states such as reliability.
	Step bool
}

// maxDots is the most points a series may have for each one to be drawn as a circle with its
// own tooltip; past that the circles would hide the line.
const maxDots = 60

// Line draws time series as lines over a UTC time axis, with nice ticks on both axes, a legend
// for more than one series, and per-point tooltips when the series are short. Long series are
// downsampled to at most two points per pixel column. Series without a single finite value are
// left out; if none remain the chart says "no data yet".
func Line(opts LineOpts, series ...Series) template.HTML {
	w, h := float64(defaultWidth), float64(defaultHeight)
	if opts.Width > 0 {
		w = float64(opts.Width)
	}
	if opts.Height > 0 {
		h = float64(opts.Height)
	}

	type drawn struct {
		idx  int
		name string
		pts  []Point
		dots bool
	}
	var ds []drawn
	var t0, t1 time.Time
	for i, s := range series {
		pts := clean(s.Points)
		if len(pts) == 0 {
			continue
		}
		if len(ds) == 0 || pts[0].X.Before(t0) {
			t0 = pts[0].X
		}
		if len(ds) == 0 || pts[len(pts)-1].X.After(t1) {
			t1 = pts[len(pts)-1].X
		}
		ds = append(ds, drawn{idx: i, name: s.Name, pts: pts, dots: len(pts) <= maxDots})
	}
	if len(ds) == 0 {
		return noData("line", opts.Title, w)
	}
	if !t1.After(t0) { // one instant: centre it in an hour
		t0, t1 = t0.Add(-30*time.Minute), t1.Add(30*time.Minute)
	}

	// The plot's width depends on the Y labels, which depend on the Y range; the range does not
	// depend on downsampling (which keeps extremes), so compute it first.
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, d := range ds {
		for _, p := range d.pts {
			lo, hi = min(lo, p.Y), max(hi, p.Y)
		}
	}
	if !opts.YFromMin {
		lo, hi = min(lo, 0), max(hi, 0)
	}
	if hi == lo { // a flat series: zero gets a unit axis, anything else ±10 %
		if lo == 0 {
			hi = 1
		} else {
			pad := math.Abs(lo) * 0.1
			lo, hi = lo-pad, hi+pad
		}
	}

	// A series keeps the colour of its argument position even when one before it is empty, so
	// the same series has the same colour on every chart of a page.
	var names []string
	var colours []int
	if len(ds) > 1 {
		for _, d := range ds {
			names = append(names, d.name)
			colours = append(colours, d.idx)
		}
	}
	top := 10.0
	if names != nil {
		top += legendHeight(names, w-20) + 8
	}
	const bottom, right = 28.0, 16.0
	plotH := h - top - bottom
	ys := niceTicks(lo, hi, max(2, int(plotH/40)))
	labelW := 0.0
	yLabels := make([]string, len(ys.ticks))
	for i, v := range ys.ticks {
		yLabels[i] = ys.label(v, opts.YFormat)
		labelW = max(labelW, textWidth(yLabels[i]))
	}
	left := labelW + 14
	plotW := w - left - right
	if plotW < 20 {
		plotW = 20
	}

	span := float64(t1.Sub(t0))
	xOf := func(t time.Time) float64 { return left + float64(t.Sub(t0))/span*plotW }
	ySpan := ys.hi() - ys.lo()
	yOf := func(v float64) float64 { return top + (ys.hi()-v)/ySpan*plotH }

	var s svg
	s.open("line", opts.Title, w, h)
	if names != nil {
		s.legend(names, colours, 10, 8, w-20)
	}

	// Y grid and labels.
	s.WriteString(`<g class="ch-yaxis">`)
	for i, v := range ys.ticks {
		y := yOf(v)
		s.line(left, y, left+plotW, y, "ch-grid")
		s.text(left-6, y+4, "end", "", yLabels[i])
	}
	s.WriteString(`</g>`)

	// X ticks and labels, all in UTC, which the corner under the Y labels says once.
	xs := timeTicks(t0, t1, max(2, int(plotW/90)))
	s.WriteString(`<g class="ch-xaxis">`)
	s.line(left, top+plotH, left+plotW, top+plotH, "ch-axis")
	tickX, tickLabels := make([]float64, len(xs.ticks)), make([]string, len(xs.ticks))
	for i, t := range xs.ticks {
		tickX[i], tickLabels[i] = xOf(t), xs.label(t)
		s.line(tickX[i], top+plotH, tickX[i], top+plotH+4, "ch-axis")
	}
	s.xLabels(tickX, tickLabels, top+plotH+17, w)
	s.WriteString(`</g>`)

	yFmt := opts.YFormat
	if yFmt == nil {
		yFmt = formatValue
	}
	buckets := max(1, int(plotW))
	for _, d := range ds {
		pts := downsample(d.pts, t0, t1, buckets)
		s.WriteString(`<g class="ch-series `)
		s.WriteString(colour(d.idx))
		s.WriteString(`"><path class="ch-line" d="`)
		s.path(pts, xOf, yOf, opts.Step)
		s.WriteString(`"/>`)
		if d.dots {
			for _, p := range pts {
				s.dot(xOf(p.X), yOf(p.Y), tooltip(d.name, yFmt(p.Y), p.X))
			}
		}
		s.WriteString(`</g>`)
	}
	return s.html()
}

// path writes the d attribute of a polyline through pts; a step path holds each value
// horizontally until the next point.
func (s *svg) path(pts []Point, xOf func(time.Time) float64, yOf func(float64) float64, step bool) {
	for i, p := range pts {
		x, y := xOf(p.X), yOf(p.Y)
		switch {
		case i == 0:
			s.WriteString("M")
			s.WriteString(num(x))
			s.WriteByte(' ')
			s.WriteString(num(y))
			if len(pts) == 1 { // a lone point still shows as a short dash
				s.WriteString("h0.1")
			}
		case step:
			s.WriteString("H")
			s.WriteString(num(x))
			s.WriteString("V")
			s.WriteString(num(y))
		default:
			s.WriteString("L")
			s.WriteString(num(x))
			s.WriteByte(' ')
			s.WriteString(num(y))
		}
	}
}

// dot writes a point marker with its tooltip.
func (s *svg) dot(x, y float64, tip string) {
	s.WriteString(`<circle class="ch-dot" cx="`)
	s.WriteString(num(x))
	s.WriteString(`" cy="`)
	s.WriteString(num(y))
	s.WriteString(`" r="3"><title>`)
	s.WriteString(esc(tip))
	s.WriteString(`</title></circle>`)
}

// tooltip is the text shown when hovering a point or segment.
func tooltip(name, value string, t time.Time) string {
	var b strings.Builder
	if name != "" {
		b.WriteString(name)
		b.WriteString(": ")
	}
	b.WriteString(value)
	b.WriteString(" at ")
	b.WriteString(formatTime(t))
	return b.String()
}
