package chart

import (
	"math"
	"strconv"
	"time"
)

// niceScale is an axis of evenly spaced ticks whose step is 1, 2 or 5 times a power of ten.
type niceScale struct {
	ticks    []float64
	decimals int // digits after the point needed to tell the ticks apart
}

// niceTicks covers [lo, hi] with at most about maxN intervals of a 1/2/5×10^n step. The first
// tick is at or below lo and the last at or above hi. Tick values are computed as integer
// multiples scaled once by a power of ten, so 0.1-steps print as 0.3, not 0.30000000000000004.
func niceTicks(lo, hi float64, maxN int) niceScale {
	if maxN < 1 {
		maxN = 1
	}
	if !(hi > lo) {
		hi = lo + 1
	}
	raw := (hi - lo) / float64(maxN)
	exp := int(math.Floor(math.Log10(raw)))
	mant := int64(10)
	for _, m := range []int64{1, 2, 5} {
		if float64(m)*pow10(exp) >= raw*(1-1e-12) {
			mant = m
			break
		}
	}
	if mant == 10 {
		mant, exp = 1, exp+1
	}
	step := float64(mant) * pow10(exp)
	k0 := int64(math.Floor(lo/step + 1e-9))
	k1 := int64(math.Ceil(hi/step - 1e-9))
	sc := niceScale{decimals: max(0, -exp)}
	for k := k0; k <= k1; k++ {
		n := float64(k * mant)
		if exp >= 0 {
			n *= pow10(exp)
		} else {
			n /= pow10(-exp)
		}
		if n == 0 {
			n = 0 // no -0
		}
		sc.ticks = append(sc.ticks, n)
	}
	return sc
}

// pow10 is 10^e for the small integer exponents axes use.
func pow10(e int) float64 { return math.Pow10(e) }

// lo and hi are the ends of the axis.
func (sc niceScale) lo() float64 { return sc.ticks[0] }
func (sc niceScale) hi() float64 { return sc.ticks[len(sc.ticks)-1] }

// label formats a tick with fmt, or with just enough decimals when fmt is nil.
func (sc niceScale) label(v float64, fmt func(float64) string) string {
	if fmt != nil {
		return fmt(v)
	}
	return strconv.FormatFloat(v, 'f', sc.decimals, 64)
}

// timeSteps are the tick intervals a time axis may use, shortest first. Days and weeks are whole
// UTC days; time.Truncate aligns them to UTC midnight (and weeks to Mondays), because the zero
// time is a Monday midnight UTC.
var timeSteps = []time.Duration{
	time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second, 15 * time.Second, 30 * time.Second,
	time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute, 15 * time.Minute, 30 * time.Minute,
	time.Hour, 2 * time.Hour, 3 * time.Hour, 6 * time.Hour, 12 * time.Hour,
	day, 2 * day, 7 * day, 14 * day, 28 * day, 91 * day, 182 * day, 364 * day,
}

const day = 24 * time.Hour

// timeScale is a time axis: tick instants and how to label them.
type timeScale struct {
	ticks []time.Time
	step  time.Duration
	long  bool // the span is long enough that day labels need the year
}

// timeTicks picks the shortest step from timeSteps that puts at most maxN intervals across
// [t0, t1], and returns the ticks at multiples of that step inside the range.
func timeTicks(t0, t1 time.Time, maxN int) timeScale {
	if maxN < 1 {
		maxN = 1
	}
	span := t1.Sub(t0)
	step := timeSteps[len(timeSteps)-1]
	for _, s := range timeSteps {
		if span <= s*time.Duration(maxN) {
			step = s
			break
		}
	}
	for span > step*time.Duration(maxN) { // beyond the table: whole multiples of its last step
		step += timeSteps[len(timeSteps)-1]
	}
	ts := timeScale{step: step, long: span > 300*day}
	t := t0.UTC().Truncate(step)
	if t.Before(t0) {
		t = t.Add(step)
	}
	for ; !t.After(t1); t = t.Add(step) {
		ts.ticks = append(ts.ticks, t)
	}
	return ts
}

// label formats a tick in UTC: clock time for steps under a day, with midnight shown as the date,
// and the date for longer steps.
func (ts timeScale) label(t time.Time) string {
	t = t.UTC()
	switch {
	case ts.step < time.Minute:
		return t.Format("15:04:05")
	case ts.step < day && (t.Hour() != 0 || t.Minute() != 0):
		return t.Format("15:04")
	case ts.long:
		return t.Format("Jan 2 2006")
	default:
		return t.Format("Jan 2")
	}
}
