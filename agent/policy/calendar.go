package policy

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/idlegpu/idlegpu/agent/config"
)

// Window is an availability interval [Start, End).
type Window struct {
	Start, End time.Time
}

// rule is a parsed weekly availability rule.
type rule struct {
	days     [7]bool // by time.Weekday
	from, to time.Duration
	loc      *time.Location
}

// Calendar is the weekly availability.
type Calendar struct {
	rules []rule
}

var dayNames = []string{"sun", "mon", "tue", "wed", "thu", "fri", "sat"}

// NewCalendar parses the configured rules.
func NewCalendar(rules []config.Availability) (Calendar, error) {
	var c Calendar
	for i, a := range rules {
		r, err := parseRule(a)
		if err != nil {
			return Calendar{}, fmt.Errorf("policy.availability[%d]: %w", i, err)
		}
		c.rules = append(c.rules, r)
	}
	return c, nil
}

func parseRule(a config.Availability) (rule, error) {
	var r rule
	var err error
	if r.loc, err = time.LoadLocation(a.TimeZone); err != nil {
		return r, err
	}
	for _, part := range strings.Split(strings.ToLower(a.Days), ",") {
		part = strings.TrimSpace(part)
		if part == "daily" {
			r.days = [7]bool{true, true, true, true, true, true, true}
			continue
		}
		lo, hi, isRange := strings.Cut(part, "-")
		a, b := slices.Index(dayNames, lo), slices.Index(dayNames, lo)
		if isRange {
			b = slices.Index(dayNames, hi)
		}
		if a < 0 || b < 0 {
			return r, fmt.Errorf("days %q: use mon..sun, ranges like mon-fri, lists, or daily", part)
		}
		for d := a; ; d = (d + 1) % 7 {
			r.days[d] = true
			if d == b {
				break
			}
		}
	}
	if r.from, err = clock(a.From); err != nil {
		return r, err
	}
	if r.to, err = clock(a.To); err != nil {
		return r, err
	}
	if r.from == r.to {
		return r, fmt.Errorf("from and to are both %s: use days = daily with 00:00-24:00 for all day", a.From)
	}
	return r, nil
}

// clock parses HH:MM (24:00 allowed) into time since midnight.
func clock(s string) (time.Duration, error) {
	var h, m int
	if _, err := fmt.Sscanf(s, "%d:%d", &h, &m); err != nil || h < 0 || m < 0 || m > 59 || h > 24 || (h == 24 && m != 0) {
		return 0, fmt.Errorf("time %q: want HH:MM", s)
	}
	return time.Duration(h)*time.Hour + time.Duration(m)*time.Minute, nil
}

// Windows returns the merged, sorted availability windows overlapping
// [now, now+horizon), clipped to it. Without rules the provider is always
// available: one window, the whole horizon.
func (c Calendar) Windows(now time.Time, horizon time.Duration) []Window {
	end := now.Add(horizon)
	if len(c.rules) == 0 {
		return []Window{{now, end}}
	}
	var ws []Window
	for _, r := range c.rules {
		local := now.In(r.loc)
		day := time.Date(local.Year(), local.Month(), local.Day(), 0, 0, 0, 0, r.loc).AddDate(0, 0, -1)
		for ; day.Before(end); day = day.AddDate(0, 0, 1) {
			if !r.days[day.Weekday()] {
				continue
			}
			s := day.Add(r.from)
			e := day.Add(r.to)
			if r.to <= r.from {
				e = day.AddDate(0, 0, 1).Add(r.to)
			}
			if e.After(now) && s.Before(end) {
				ws = append(ws, Window{maxTime(s, now).UTC(), minTime(e, end).UTC()})
			}
		}
	}
	slices.SortFunc(ws, func(a, b Window) int { return a.Start.Compare(b.Start) })
	var merged []Window
	for _, w := range ws {
		if n := len(merged); n > 0 && !w.Start.After(merged[n-1].End) {
			merged[n-1].End = maxTime(merged[n-1].End, w.End)
			continue
		}
		merged = append(merged, w)
	}
	return merged
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
