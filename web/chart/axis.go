package chart

import "math"

// utcNoteEnd is where the "UTC" note in the bottom-left corner of time charts ends.
const utcNoteEnd = 4 + 3*charW

// xLabels writes labels under a time axis at baseline y, keeping each inside [utcNoteEnd+4, maxX]:
// a label that would cross an end is anchored at its tick instead of centred on it, and one that
// still does not fit, or that would overlap the previous label, is left out.
func (s *svg) xLabels(xs []float64, labels []string, y, maxX float64) {
	minX, prevEnd := utcNoteEnd+4, math.Inf(-1)
	for i, x := range xs {
		lw := textWidth(labels[i])
		start, anchor := x-lw/2, "middle"
		switch {
		case start < minX:
			start, anchor = x, "start"
		case x+lw/2 > maxX:
			start, anchor = x-lw, "end"
		}
		if start < minX || start+lw > maxX || start < prevEnd+6 {
			continue
		}
		s.text(x, y, anchor, "", labels[i])
		prevEnd = start + lw
	}
	s.text(4, y, "start", "ch-muted", "UTC")
}
