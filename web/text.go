package web

import (
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
