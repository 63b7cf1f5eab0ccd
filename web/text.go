package web

import (
	"fmt"
	"strings"
	"time"
)

// Energy writes millijoules in Wh below a kWh, else kWh.
func Energy(mj uint64) string {
	wh := float64(mj) / 3.6e6
	if wh < 1000 {
		return chartNumber(wh) + " Wh"
	}
	return chartNumber(wh/1000) + " kWh"
}

// When writes a time in UTC to the second, or "—" for the zero time.
func When(t time.Time) string {
	if t.IsZero() || t.Unix() <= 0 {
		return "—"
	}
	return t.UTC().Format("2006-01-02 15:04:05 UTC")
}

// WhenShort is When to the minute, for table cells ("2026-12-06 00:27").
func WhenShort(t time.Time) string {
	if t.IsZero() || t.Unix() <= 0 {
		return "—"
	}
	return t.UTC().Format("2006-01-02 15:04")
}

// Short cuts a long address or hash to its ends for tables; the full value
// stays in the link's title.
func Short(s string) string {
	if len(s) <= 20 {
		return s
	}
	return s[:10] + "…" + s[len(s)-6:]
}

// Enum turns "LEASE_STATUS_ACTIVE" into "active".
func Enum(s, prefix string) string {
	return strings.ToLower(strings.ReplaceAll(strings.TrimPrefix(s, prefix), "_", " "))
}

// Ago writes an age in its largest units, for "… ago": "4 s", "3 min 20 s",
// "2 h 5 min", "3 d 4 h". A negative age (a clock ahead of ours) is "0 s".
func Ago(d time.Duration) string {
	s := int64(max(d, 0) / time.Second)
	switch {
	case s < 60:
		return fmt.Sprintf("%d s", s)
	case s < 3600:
		return fmt.Sprintf("%d min %d s", s/60, s%60)
	case s < 86400:
		return fmt.Sprintf("%d h %d min", s/3600, s%3600/60)
	}
	return fmt.Sprintf("%d d %d h", s/86400, s%86400/3600)
}
