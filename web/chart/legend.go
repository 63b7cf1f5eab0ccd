package chart

const legendRowH = 18

// legendHeight is the height legend needs to lay out names across width w.
func legendHeight(names []string, w float64) float64 {
	rows, x := 1, 0.0
	for _, n := range names {
		iw := legendItemWidth(n)
		if x > 0 && x+iw > w {
			rows, x = rows+1, 0
		}
		x += iw
	}
	return float64(rows) * legendRowH
}

// legendItemWidth is a swatch, the name and the gap to the next item.
func legendItemWidth(name string) float64 {
	return 14 + textWidth(name) + 16
}

// legend writes one swatch and name per entry, wrapping at width w, starting at (x0, y0) as the
// top-left corner; entry i gets colour colours[i], or colour i when colours is nil.
func (s *svg) legend(names []string, colours []int, x0, y0, w float64) {
	s.WriteString(`<g class="ch-legend">`)
	x, y := 0.0, y0
	for i, n := range names {
		iw := legendItemWidth(n)
		if x > 0 && x+iw > w {
			x, y = 0, y+legendRowH
		}
		c := i
		if colours != nil {
			c = colours[i]
		}
		s.rect(x0+x, y+3, 10, 10, "ch-key "+colour(c), "")
		s.text(x0+x+14, y+12, "start", "", n)
		x += iw
	}
	s.WriteString(`</g>`)
}
