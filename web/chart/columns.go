package chart

import (
	"html/template"
	"slices"
	"time"
)

// ColumnOpts configures Columns.
type ColumnOpts struct {
	// Title names the chart for screen readers and as its tooltip.
	Title string
	// Width and Height are the viewBox size; zero means 720×280.
	Width, Height int
	// YFormat formats values on the axis and in tooltips, e.g. "12.5 USDC". Nil prints plain numbers.
	YFormat func(float64) string
}

// Columns draws vertical columns, one per distinct time bucket (each point's X is the start of
// its bucket, e.g. a UTC day), with the series stacked in each column in argument order. It is
// meant for tens to hundreds of buckets, such as earnings per day; it does not aggregate.
// Negative and non-finite values count as zero.
func Columns(opts ColumnOpts, series ...Series) template.HTML {
	w, h := float64(defaultWidth), float64(defaultHeight)
	if opts.Width > 0 {
		w = float64(opts.Width)
	}
	if opts.Height > 0 {
		h = float64(opts.Height)
	}

	// Buckets are the distinct instants, sorted; stack[b][i] is series i's total in bucket b.
	var buckets []time.Time
	for _, s := range series {
		for _, p := range s.Points {
			if finite(p.Y) {
				buckets = append(buckets, p.X)
			}
		}
	}
	if len(buckets) == 0 {
		return noData("columns", opts.Title, w)
	}
	slices.SortFunc(buckets, func(a, b time.Time) int { return a.Compare(b) })
	buckets = slices.CompactFunc(buckets, func(a, b time.Time) bool { return a.Equal(b) })
	index := func(t time.Time) int {
		i, _ := slices.BinarySearchFunc(buckets, t, func(a, b time.Time) int { return a.Compare(b) })
		return i
	}
	stack := make([][]float64, len(buckets))
	for b := range stack {
		stack[b] = make([]float64, len(series))
	}
	maxTotal := 0.0
	for i, s := range series {
		for _, p := range s.Points {
			if finite(p.Y) {
				stack[index(p.X)][i] += partValue(p.Y)
			}
		}
	}
	for _, col := range stack {
		t := 0.0
		for _, v := range col {
			t += v
		}
		maxTotal = max(maxTotal, t)
	}

	var names []string
	if len(series) > 1 {
		for _, s := range series {
			names = append(names, s.Name)
		}
	}
	top := 10.0
	if names != nil {
		top += legendHeight(names, w-20) + 8
	}
	const bottom, right = 28.0, 16.0
	plotH := h - top - bottom
	ys := niceTicks(0, maxTotal, max(2, int(plotH/40)))
	labelW := 0.0
	yLabels := make([]string, len(ys.ticks))
	for i, v := range ys.ticks {
		yLabels[i] = ys.label(v, opts.YFormat)
		labelW = max(labelW, textWidth(yLabels[i]))
	}
	left := labelW + 14
	plotW := max(20, w-left-right)
	yOf := func(v float64) float64 { return top + (ys.hi()-v)/ys.hi()*plotH }

	// Label buckets by their spacing: dates for daily or longer, clock times otherwise.
	layout := "Jan 2"
	for i := 1; i < len(buckets); i++ {
		if buckets[i].Sub(buckets[i-1]) < day {
			layout = "Jan 2 15:04"
			break
		}
	}
	slot := plotW / float64(len(buckets))
	every := max(1, int(textWidth(layout)+12)/max(1, int(slot))+1)

	yFmt := opts.YFormat
	if yFmt == nil {
		yFmt = formatValue
	}
	var s svg
	s.open("columns", opts.Title, w, h)
	if names != nil {
		s.legend(names, nil, 10, 8, w-20)
	}
	s.WriteString(`<g class="ch-yaxis">`)
	for i, v := range ys.ticks {
		y := yOf(v)
		s.line(left, y, left+plotW, y, "ch-grid")
		s.text(left-6, y+4, "end", "", yLabels[i])
	}
	s.WriteString(`</g><g class="ch-xaxis">`)
	s.line(left, top+plotH, left+plotW, top+plotH, "ch-axis")
	var tickX []float64
	var tickLabels []string
	for b, t := range buckets {
		if b%every == 0 {
			tickX = append(tickX, left+(float64(b)+0.5)*slot)
			tickLabels = append(tickLabels, t.UTC().Format(layout))
		}
	}
	s.xLabels(tickX, tickLabels, top+plotH+17, w)
	s.WriteString(`</g>`)

	for b, col := range stack {
		x := left + float64(b)*slot + slot*0.1
		base := 0.0
		s.WriteString(`<g class="ch-column">`)
		for i, v := range col {
			if v == 0 {
				continue
			}
			y0, y1 := yOf(base+v), yOf(base)
			s.rect(x, y0, slot*0.8, y1-y0, "ch-col "+colour(i), tooltip(series[i].Name, yFmt(v), buckets[b]))
			base += v
		}
		s.WriteString(`</g>`)
	}
	return s.html()
}
