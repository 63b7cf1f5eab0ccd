package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"
)

func TestBlockIntervalsOfAWindow(t *testing.T) {
	t0 := time.Date(2026, 12, 7, 0, 0, 0, 0, time.UTC)
	var bs []Block
	at := t0
	for i, gap := range []time.Duration{0, time.Second, time.Second, 3 * time.Second, time.Second, 2 * time.Second} {
		at = at.Add(gap)
		bs = append(bs, Block{Height: int64(i + 1), Observed: at})
	}
	// From t0+1.5 s: the intervals ending at blocks 3..6 are 1, 3, 1 and 2 s.
	p50, p99, n := blockIntervals(bs, t0.Add(1500*time.Millisecond))
	if n != 4 || p50 != 2*time.Second || p99 != 3*time.Second {
		t.Fatalf("p50 %v p99 %v n %d; want 2s 3s 4", p50, p99, n)
	}
	if _, _, n := blockIntervals(bs, at); n != 0 {
		t.Fatalf("no block after the last: n %d", n)
	}
}

func TestGoroutinesFromPprof(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/debug/pprof/goroutine" || r.URL.Query().Get("debug") != "1" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprint(w, "goroutine profile: total 87\n3 @ 0x1 0x2\n")
	}))
	defer srv.Close()
	n, err := goroutines(context.Background(), strings.TrimPrefix(srv.URL, "http://"))
	if err != nil || n != 87 {
		t.Fatalf("got %d, %v; want 87", n, err)
	}
}

func TestRSSOfThisProcess(t *testing.T) {
	mib, err := rssMiB(os.Getpid())
	if err != nil || mib <= 0 || mib > 64<<10 {
		t.Fatalf("RSS %.1f MiB, %v", mib, err)
	}
}

// A localnet soak reports every validator's figures, the first first, and
// each one's disk growth an hour.
func TestSoakReportPerValidator(t *testing.T) {
	r := &report{opts: options{soak: time.Hour, validators: 2, soakEpoch: 20 * time.Second}, started: time.Now(), finished: time.Now()}
	r.soak = &soakResult{window: time.Minute, epochSec: 20, bidRate: 120, leases: 2000, missed: 0, excused: 3, samples: []soakSample{
		{At: time.Minute, RSSMiB: []float64{933, 901}, DiskMiB: []float64{40, 41}, Goroutines: []int{120, 99}},
		{At: 31 * time.Minute, RSSMiB: []float64{2000, 1900.4}, DiskMiB: []float64{540, 291}, Goroutines: []int{121, 99}, Waiting: 1},
	}}
	md := r.markdown()
	for _, want := range []string{
		"-soak-epoch 20s -validators 2",
		"| 933 · 901 | 40 · 41 | 120 · 99 |",
		"RSS 933 · 901 → 2000 · 1900 MiB, goroutines 120 · 99 → 121 · 99, data 40 · 41 → 540 · 291 MiB (1000 · 500 MiB an hour)",
		"2000 leases: 0 missed, 3 excused",
		"waiting for such an excuse at the end: 1.",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
}
