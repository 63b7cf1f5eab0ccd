package chart

import (
	"math"
	"slices"
	"testing"
	"time"
)

func TestNiceTicks(t *testing.T) {
	cases := []struct {
		name     string
		lo, hi   float64
		maxN     int
		want     []float64
		decimals int
	}{
		{"percent", 0, 87, 5, []float64{0, 20, 40, 60, 80, 100}, 0},
		{"price", 0, 1.37, 5, []float64{0, 0.5, 1, 1.5}, 1},
		{"tenths print exactly", 0.3, 0.7, 4, []float64{0.3, 0.4, 0.5, 0.6, 0.7}, 1},
		{"large", 0, 12345, 5, []float64{0, 5000, 10000, 15000}, 0},
		{"negative", -3, 7, 5, []float64{-4, -2, 0, 2, 4, 6, 8}, 0},
		{"from min", 96.2, 99.9, 4, []float64{96, 97, 98, 99, 100}, 0},
		{"tiny", 0, 0.0042, 4, []float64{0, 0.002, 0.004, 0.006}, 3},
		{"flat zero", 0, 0, 5, []float64{0, 0.2, 0.4, 0.6, 0.8, 1}, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sc := niceTicks(tc.lo, tc.hi, tc.maxN)
			if !slices.Equal(sc.ticks, tc.want) {
				t.Fatalf("ticks %v, want %v", sc.ticks, tc.want)
			}
			if sc.decimals != tc.decimals {
				t.Fatalf("decimals %d, want %d", sc.decimals, tc.decimals)
			}
		})
	}
	if got := niceTicks(0.3, 0.7, 4).label(0.3, nil); got != "0.3" {
		t.Fatalf("label %q, want 0.3", got)
	}
}

func TestTimeTicks(t *testing.T) {
	at := func(s string) time.Time {
		tm, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return tm
	}
	cases := []struct {
		name   string
		t0, t1 string
		step   time.Duration
		labels []string
	}{
		{"an hour", "2026-12-05T13:07:00Z", "2026-12-05T14:07:00Z", 10 * time.Minute,
			[]string{"13:10", "13:20", "13:30", "13:40", "13:50", "14:00"}},
		{"a day, midnight as the date", "2026-12-04T22:30:00Z", "2026-12-05T22:30:00Z", 6 * time.Hour,
			[]string{"Dec 5", "06:00", "12:00", "18:00"}},
		{"a week", "2026-11-28T09:00:00Z", "2026-12-05T09:00:00Z", day,
			[]string{"Nov 29", "Nov 30", "Dec 1", "Dec 2", "Dec 3", "Dec 4", "Dec 5"}},
		{"90 seconds", "2026-12-05T10:00:05Z", "2026-12-05T10:01:35Z", 15 * time.Second,
			[]string{"10:00:15", "10:00:30", "10:00:45", "10:01:00", "10:01:15", "10:01:30"}},
		{"two months in weeks from Monday", "2026-10-01T00:00:00Z", "2026-11-30T00:00:00Z", 14 * day,
			[]string{"Oct 12", "Oct 26", "Nov 9", "Nov 23"}}, // Mondays
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ts := timeTicks(at(tc.t0), at(tc.t1), 7)
			if ts.step != tc.step {
				t.Fatalf("step %v, want %v", ts.step, tc.step)
			}
			var got []string
			for _, tk := range ts.ticks {
				got = append(got, ts.label(tk))
			}
			if !slices.Equal(got, tc.labels) {
				t.Fatalf("labels %q, want %q", got, tc.labels)
			}
		})
	}
	// Local-zone input is still labelled in UTC.
	loc := time.FixedZone("UTC+5", 5*3600)
	ts := timeTicks(at("2026-12-05T13:07:00Z").In(loc), at("2026-12-05T14:07:00Z").In(loc), 7)
	if got := ts.label(ts.ticks[0]); got != "13:10" {
		t.Fatalf("label %q, want 13:10 (UTC)", got)
	}
}

func TestDownsampleKeepsExtremesWithinBound(t *testing.T) {
	const n, buckets = 100_000, 700
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	pts := make([]Point, n)
	for i := range pts {
		pts[i] = Point{X: t0.Add(time.Duration(i) * time.Second), Y: math.Sin(float64(i) / 500)}
	}
	pts[31_337].Y = -7 // spikes a mean would hide
	pts[77_777].Y = 9
	t1 := pts[n-1].X
	got := downsample(pts, t0, t1, buckets)
	if len(got) > 2*buckets {
		t.Fatalf("%d points, want <= %d", len(got), 2*buckets)
	}
	if len(got) < buckets {
		t.Fatalf("%d points, want at least one per bucket (%d)", len(got), buckets)
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, p := range got {
		lo, hi = min(lo, p.Y), max(hi, p.Y)
		if i > 0 && p.X.Before(got[i-1].X) {
			t.Fatalf("point %d out of order", i)
		}
	}
	if lo != -7 || hi != 9 {
		t.Fatalf("min %v max %v, want -7 and 9", lo, hi)
	}
	if got[0] != pts[0] && got[0].Y != -7 {
		t.Fatalf("first point %v lost", pts[0])
	}
	short := pts[:10]
	if got := downsample(short, t0, t1, buckets); len(got) != 10 {
		t.Fatalf("short series changed: %d points", len(got))
	}
}

func TestCleanSortsAndDropsNonFinite(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	in := []Point{{t0.Add(2 * time.Hour), 2}, {t0, math.NaN()}, {t0.Add(time.Hour), 1}, {t0, math.Inf(1)}}
	got := clean(in)
	want := []Point{{t0.Add(time.Hour), 1}, {t0.Add(2 * time.Hour), 2}}
	if !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if in[0].Y != 2 {
		t.Fatal("clean modified its input")
	}
}

func TestDownsampleBoundHoldsForTimesBeyondUnixNano(t *testing.T) {
	// Times outside 1678..2262 overflow UnixNano; the bucket walk must still not exceed its bound.
	var pts []Point
	for i := range 5000 {
		pts = append(pts, Point{X: time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(i/10, 0, 0), Y: float64(i % 13)})
	}
	pts = append(pts, Point{X: time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC), Y: 99})
	got := downsample(pts, pts[0].X, pts[len(pts)-1].X, 100)
	if len(got) > 200 {
		t.Fatalf("%d points, want <= 200", len(got))
	}
}
