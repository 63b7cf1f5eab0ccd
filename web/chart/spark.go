package chart

import (
	"html/template"
	"math"
	"time"
)

// Spark draws a tiny trend line of w×h pixels for table cells: no axes, the Y range fitted to the
// data, and the last point marked. It uses currentColor, so it takes the colour of the text around
// it and needs no style block. Long inputs are downsampled to two points per pixel column.
func Spark(points []Point, w, h int) template.HTML {
	w, h = max(w, 8), max(h, 4)
	fw, fh := float64(w), float64(h)
	pts := clean(points)

	var s svg
	s.WriteString(`<svg xmlns="http://www.w3.org/2000/svg" class="ch ch-spark" viewBox="0 0 `)
	s.WriteString(num(fw) + " " + num(fh))
	s.WriteString(`" width="` + num(fw) + `" height="` + num(fh) + `" role="img" aria-label="`)
	if len(pts) == 0 {
		s.WriteString(`no data yet"><title>no data yet</title>`)
		s.WriteString(`<line class="ch-spark-none" x1="1" y1="` + num(fh/2) + `" x2="` + num(fw-1) + `" y2="` +
			num(fh/2) + `" stroke="currentColor" stroke-opacity="0.4" stroke-dasharray="2 2"/>`)
		return s.html()
	}

	lo, hi := math.Inf(1), math.Inf(-1)
	for _, p := range pts {
		lo, hi = min(lo, p.Y), max(hi, p.Y)
	}
	last := pts[len(pts)-1]
	summary := "trend: last " + formatValue(last.Y) + ", min " + formatValue(lo) + ", max " + formatValue(hi)
	s.WriteString(esc(summary) + `"><title>` + esc(summary) + `</title>`)

	t0, t1 := pts[0].X, last.X
	const pad = 2.0
	xOf := func(t time.Time) float64 {
		if !t1.After(t0) {
			return fw - pad
		}
		return pad + float64(t.Sub(t0))/float64(t1.Sub(t0))*(fw-2*pad)
	}
	yOf := func(v float64) float64 {
		if hi == lo {
			return fh / 2
		}
		return pad + (hi-v)/(hi-lo)*(fh-2*pad)
	}
	pts = downsample(pts, t0, t1, w)
	s.WriteString(`<path class="ch-spark-line" fill="none" stroke="currentColor" stroke-width="1.25" d="`)
	s.path(pts, xOf, yOf, false)
	s.WriteString(`"/><circle class="ch-spark-dot" fill="currentColor" r="1.75" cx="` + num(xOf(last.X)) +
		`" cy="` + num(yOf(last.Y)) + `"/>`)
	return s.html()
}
