// Package chart renders charts for idlegpu-web as inline SVG on the server, so that the pages work
// with JavaScript turned off. Every chart is a template.HTML that a page embeds directly; all text
// is escaped here, the output is well-formed XML, and equal input gives byte-equal output.
//
// Charts are sized by their viewBox and drawn at width 100%, so they scale with the page. Colours
// come from CSS classes prefixed "ch-"; each chart carries a <style> block with a default palette
// readable in light mode, which a page may override with more specific rules.
package chart

import (
	"html/template"
	"math"
	"strconv"
	"strings"
	"time"
)

// Point is one sample of a time series.
type Point struct {
	X time.Time
	Y float64
}

// Series is a named time series; its points need not be sorted.
type Series struct {
	Name   string
	Points []Point
}

const (
	defaultWidth  = 720
	defaultHeight = 280
	// charW approximates the advance of one character of the 12px chart font, for layout only.
	charW = 7.0
	// paletteSize is how many ch-cN colour classes the default style defines; series cycle through them.
	paletteSize = 8
)

// style is the default palette. It must not contain '<' or '&' so that it is the same text to an
// HTML parser (foreign content) and to an XML parser.
const style = `<style>` +
	`.ch{font:12px system-ui,-apple-system,"Segoe UI",sans-serif}` +
	`.ch text{fill:#374151}` +
	`.ch .ch-muted{fill:#6b7280}` +
	`.ch .ch-inlabel{fill:#fff;font-size:11px}` +
	`.ch-grid{stroke:#e5e7eb;stroke-width:1}` +
	`.ch-axis{stroke:#9ca3af;stroke-width:1}` +
	`.ch-line{fill:none;stroke:var(--ch-c);stroke-width:2;stroke-linejoin:round;stroke-linecap:round}` +
	`.ch-dot,.ch-seg,.ch-key,.ch-col{fill:var(--ch-c)}` +
	`.ch-dot{stroke:#fff;stroke-width:1}` +
	`.ch-c0{--ch-c:#2563eb}.ch-c1{--ch-c:#ea580c}.ch-c2{--ch-c:#16a34a}.ch-c3{--ch-c:#9333ea}` +
	`.ch-c4{--ch-c:#dc2626}.ch-c5{--ch-c:#0891b2}.ch-c6{--ch-c:#a16207}.ch-c7{--ch-c:#db2777}` +
	`</style>`

// svg accumulates one chart's markup.
type svg struct {
	strings.Builder
}

// open writes the root element, its accessible name and the default style.
func (s *svg) open(kind, title string, w, h float64) {
	s.WriteString(`<svg xmlns="http://www.w3.org/2000/svg" class="ch ch-`)
	s.WriteString(kind)
	s.WriteString(`" viewBox="0 0 `)
	s.WriteString(num(w))
	s.WriteByte(' ')
	s.WriteString(num(h))
	s.WriteString(`" width="100%" role="img" aria-label="`)
	s.WriteString(esc(title))
	s.WriteString(`"><title>`)
	s.WriteString(esc(title))
	s.WriteString(`</title>`)
	s.WriteString(style)
}

// html closes the root element and hands the markup to templates as safe HTML.
func (s *svg) html() template.HTML {
	s.WriteString(`</svg>`)
	return template.HTML(s.String()) //nolint:gosec // every piece of text went through esc
}

// text writes a <text> element; anchor is "start", "middle" or "end".
func (s *svg) text(x, y float64, anchor, class, body string) {
	s.WriteString(`<text x="`)
	s.WriteString(num(x))
	s.WriteString(`" y="`)
	s.WriteString(num(y))
	s.WriteString(`"`)
	if anchor != "start" {
		s.WriteString(` text-anchor="`)
		s.WriteString(anchor)
		s.WriteString(`"`)
	}
	if class != "" {
		s.WriteString(` class="`)
		s.WriteString(class)
		s.WriteString(`"`)
	}
	s.WriteString(`>`)
	s.WriteString(esc(body))
	s.WriteString(`</text>`)
}

// line writes a <line> element.
func (s *svg) line(x1, y1, x2, y2 float64, class string) {
	s.WriteString(`<line class="`)
	s.WriteString(class)
	s.WriteString(`" x1="`)
	s.WriteString(num(x1))
	s.WriteString(`" y1="`)
	s.WriteString(num(y1))
	s.WriteString(`" x2="`)
	s.WriteString(num(x2))
	s.WriteString(`" y2="`)
	s.WriteString(num(y2))
	s.WriteString(`"/>`)
}

// rect writes a <rect> with a tooltip; a rect with no tooltip passes tip "".
func (s *svg) rect(x, y, w, h float64, class, tip string) {
	s.WriteString(`<rect class="`)
	s.WriteString(class)
	s.WriteString(`" x="`)
	s.WriteString(num(x))
	s.WriteString(`" y="`)
	s.WriteString(num(y))
	s.WriteString(`" width="`)
	s.WriteString(num(w))
	s.WriteString(`" height="`)
	s.WriteString(num(h))
	if tip == "" {
		s.WriteString(`"/>`)
		return
	}
	s.WriteString(`"><title>`)
	s.WriteString(esc(tip))
	s.WriteString(`</title></rect>`)
}

// noData is the chart drawn for empty input: a small box that says so, with the chart's title.
func noData(kind, title string, w float64) template.HTML {
	var s svg
	s.open(kind+" ch-empty", title, w, 60)
	s.text(w/2, 34, "middle", "ch-muted", "no data yet")
	return s.html()
}

// colour is the palette class of the i-th series or part.
func colour(i int) string {
	return "ch-c" + strconv.Itoa(i%paletteSize)
}

// num formats a coordinate with at most one decimal, which is finer than any screen needs and keeps
// the markup small.
func num(v float64) string {
	r := math.Round(v*10) / 10
	if r == 0 {
		return "0" // also turns -0 into 0
	}
	return strconv.FormatFloat(r, 'f', -1, 64)
}

// esc makes s safe as XML text or attribute value: invalid UTF-8 and characters XML 1.0 forbids
// are dropped, then markup characters are escaped.
func esc(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' || (r >= 0x20 && r <= 0xD7FF) ||
			(r >= 0xE000 && r <= 0xFFFD) || r >= 0x10000 {
			return r
		}
		return -1
	}, s)
	return template.HTMLEscapeString(s)
}

// textWidth estimates the rendered width of s in the chart font.
func textWidth(s string) float64 {
	return float64(len([]rune(s))) * charW
}

// clip shortens s to at most n runes, marking the cut with an ellipsis.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	if n <= 1 {
		return "…"
	}
	return string(r[:n-1]) + "…"
}

// formatValue is the default number format: up to four significant digits, no exponent for
// ordinary magnitudes.
func formatValue(v float64) string {
	if v == 0 {
		return "0"
	}
	a := math.Abs(v)
	if a >= 1e-3 && a < 1e15 {
		prec := 4 - int(math.Floor(math.Log10(a))) - 1
		if prec < 0 {
			prec = 0
		}
		s := strconv.FormatFloat(v, 'f', prec, 64)
		if strings.Contains(s, ".") {
			s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
		}
		return s
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

// formatTime is the time in tooltips: UTC, to the minute unless the seconds matter.
func formatTime(t time.Time) string {
	t = t.UTC()
	if t.Second() != 0 || t.Nanosecond() != 0 {
		return t.Format("2006-01-02 15:04:05 UTC")
	}
	return t.Format("2006-01-02 15:04 UTC")
}

// finite reports whether v can be drawn.
func finite(v float64) bool {
	return !math.IsNaN(v) && !math.IsInf(v, 0)
}
