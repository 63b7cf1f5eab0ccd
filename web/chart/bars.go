package chart

import (
	"html/template"
	"math"
)

// BarOpts configures Bars.
type BarOpts struct {
	// Title names the chart for screen readers and as its tooltip.
	Title string
	// Width is the viewBox width; zero means 720. The height follows from the number of bars.
	Width int
	// Format formats values in labels and tooltips, e.g. "12 GPUs". Nil prints plain numbers.
	Format func(float64) string
}

// Bar is one horizontal bar, made of parts stacked left to right.
type Bar struct {
	Label string
	Parts []Part
}

// Part is one segment of a bar. Parts with the same name share a colour and a legend entry
// across bars; negative and non-finite values count as zero.
type Part struct {
	Name  string
	Value float64
}

// Bars draws horizontal stacked bars on a common scale from zero, with each bar's total after
// it, each segment's value inside it where it fits, a tooltip per segment and a legend when there
// is more than one part name.
func Bars(opts BarOpts, bars ...Bar) template.HTML {
	w := float64(defaultWidth)
	if opts.Width > 0 {
		w = float64(opts.Width)
	}
	if len(bars) == 0 {
		return noData("bars", opts.Title, w)
	}
	format := opts.Format
	if format == nil {
		format = formatValue
	}

	// Colours by part name in order of first appearance, so equal names match across bars.
	colourOf := map[string]int{}
	var names []string
	totals := make([]float64, len(bars))
	totalLabels := make([]string, len(bars))
	maxTotal, labelW, totalW := 0.0, 0.0, 0.0
	for i, b := range bars {
		for _, p := range b.Parts {
			if _, ok := colourOf[p.Name]; !ok {
				colourOf[p.Name] = len(names)
				names = append(names, p.Name)
			}
			totals[i] += partValue(p.Value)
		}
		maxTotal = max(maxTotal, totals[i])
		totalLabels[i] = format(totals[i])
		labelW = max(labelW, textWidth(b.Label))
		totalW = max(totalW, textWidth(totalLabels[i]))
	}
	labelW = min(labelW, w*0.35)
	maxChars := max(1, int(labelW/charW))

	const rowH, gap, axisH = 22.0, 8.0, 24.0
	top := 8.0
	if len(names) > 1 {
		top += legendHeight(names, w-20) + 6
	}
	left := 10 + labelW + 8
	plotW := max(20, w-left-totalW-16)
	plotH := float64(len(bars))*(rowH+gap) - gap
	h := top + plotH + axisH + 4

	xs := niceTicks(0, max(maxTotal, 0), max(2, int(plotW/80)))
	xOf := func(v float64) float64 { return left + v/xs.hi()*plotW }

	var s svg
	s.open("bars", opts.Title, w, h)
	if len(names) > 1 {
		s.legend(names, nil, 10, 6, w-20)
	}
	s.WriteString(`<g class="ch-xaxis">`)
	for _, v := range xs.ticks {
		x := xOf(v)
		s.line(x, top-2, x, top+plotH+2, "ch-grid")
		s.text(x, top+plotH+17, "middle", "ch-muted", xs.label(v, opts.Format))
	}
	s.WriteString(`</g>`)

	for i, b := range bars {
		y := top + float64(i)*(rowH+gap)
		s.WriteString(`<g class="ch-bar">`)
		if short := clip(b.Label, maxChars); short != b.Label { // the full label as its tooltip
			s.WriteString(`<g><title>` + esc(b.Label) + `</title>`)
			s.text(left-8, y+rowH/2+4, "end", "", short)
			s.WriteString(`</g>`)
		} else {
			s.text(left-8, y+rowH/2+4, "end", "", b.Label)
		}
		x := left
		for _, p := range b.Parts {
			v := partValue(p.Value)
			if v == 0 {
				continue
			}
			bw := v / xs.hi() * plotW
			label := format(v)
			tip := b.Label + " — " + p.Name + ": " + label
			if p.Name == "" {
				tip = b.Label + ": " + label
			}
			s.rect(x, y, bw, rowH, "ch-seg "+colour(colourOf[p.Name]), tip)
			if textWidth(label)+8 <= bw {
				s.text(x+bw/2, y+rowH/2+4, "middle", "ch-inlabel", label)
			}
			x += bw
		}
		s.text(x+6, y+rowH/2+4, "start", "", totalLabels[i])
		s.WriteString(`</g>`)
	}
	return s.html()
}

// partValue is the length a part contributes: what cannot be drawn counts as nothing.
func partValue(v float64) float64 {
	if math.IsNaN(v) || v <= 0 || math.IsInf(v, 0) {
		return 0
	}
	return v
}
