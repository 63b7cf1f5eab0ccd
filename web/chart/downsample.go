package chart

import (
	"slices"
	"time"
)

// clean returns the drawable points of pts in time order: non-finite values are dropped, and the
// input is copied only when it has to change.
func clean(pts []Point) []Point {
	ok := true
	for _, p := range pts {
		if !finite(p.Y) {
			ok = false
			break
		}
	}
	if !ok {
		out := make([]Point, 0, len(pts))
		for _, p := range pts {
			if finite(p.Y) {
				out = append(out, p)
			}
		}
		pts = out
	}
	byX := func(a, b Point) int { return a.X.Compare(b.X) }
	if !slices.IsSortedFunc(pts, byX) {
		if ok {
			pts = slices.Clone(pts)
		}
		slices.SortStableFunc(pts, byX)
	}
	return pts
}

// downsample reduces sorted points to at most 2×buckets by splitting [t0, t1] into buckets of
// equal time (one per pixel column) and keeping, for each bucket, its lowest and its highest
// point in their original order. Every extreme survives, so spikes stay visible and the global
// minimum and maximum are exact, while the markup stays proportional to the chart's width.
func downsample(pts []Point, t0, t1 time.Time, buckets int) []Point {
	if buckets < 1 {
		buckets = 1
	}
	if len(pts) <= 2*buckets {
		return pts
	}
	// Unix nanoseconds and a precomputed scale: time.Time.Sub and a division per point were most
	// of the cost of a 100,000-point chart. UnixNano covers the years 1678 to 2262.
	start, scale := t0.UnixNano(), 0.0
	if span := t1.UnixNano() - start; span > 0 {
		scale = float64(buckets) / float64(span)
	}
	bucketOf := func(p Point) int {
		b := int(float64(p.X.UnixNano()-start) * scale)
		return min(max(b, 0), buckets-1)
	}
	out := make([]Point, 0, 2*buckets)
	cur, lo, hi := bucketOf(pts[0]), 0, 0
	flush := func() {
		a, b := min(lo, hi), max(lo, hi)
		out = append(out, pts[a])
		if b != a {
			out = append(out, pts[b])
		}
	}
	for i := 1; i < len(pts); i++ {
		// Buckets only move forward, even for times UnixNano cannot hold, so there are at most
		// `buckets` flushes and the bound holds for any input.
		if b := bucketOf(pts[i]); b > cur {
			flush()
			cur, lo, hi = b, i, i
			continue
		}
		if pts[i].Y < pts[lo].Y {
			lo = i
		}
		if pts[i].Y > pts[hi].Y {
			hi = i
		}
	}
	flush()
	return out
}
