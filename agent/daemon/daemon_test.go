package daemon

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	sdk "github.com/cosmos/cosmos-sdk/types"
	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/agent/config"
	"github.com/idlegpu/idlegpu/agent/policy"
	offertypes "github.com/idlegpu/idlegpu/x/offer/types"
)

func coin(s string) *sdk.Coin {
	c, err := sdk.ParseCoinNormalized(s)
	if err != nil {
		panic(err)
	}
	return &c
}

func testDaemon(t *testing.T, p config.Policy) *Daemon {
	t.Helper()
	prices, err := policy.NewPrices(p)
	require.NoError(t, err)
	cal, err := policy.NewCalendar(p.Availability)
	require.NoError(t, err)
	d := &Daemon{cfg: config.Config{Policy: p}, prices: prices, calendar: cal}
	d.params.Offer = offertypes.DefaultParams()
	return d
}

func TestOfferTerms(t *testing.T) {
	const h100 = "NVIDIA H100 80GB HBM3"
	base := config.Default("").Policy
	now := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC) // a Wednesday

	t.Run("both lanes, workloads and the lease limit; always available", func(t *testing.T) {
		d := testDaemon(t, base)
		terms, ok := d.terms(h100, now, 0)
		require.True(t, ok)
		require.Equal(t, "2000000uusdc", terms.PriceOnDemand.String())
		require.Equal(t, "900000uusdc", terms.PricePreemptible.String())
		require.Equal(t, uint32(offertypes.LANE_ON_DEMAND|offertypes.LANE_RESERVED|offertypes.LANE_PREEMPTIBLE), terms.Lanes)
		require.Equal(t, uint32(offertypes.WORKLOAD_TRAINING|offertypes.WORKLOAD_INFERENCE|offertypes.WORKLOAD_BATCH), terms.Workloads)
		require.Equal(t, uint64(72*3600), terms.MaxDurationSeconds)
		require.Empty(t, terms.Windows, "no calendar: always available")
	})
	t.Run("a model without a price is not offered", func(t *testing.T) {
		_, ok := testDaemon(t, base).terms("NVIDIA A100-SXM4-80GB", now, 0)
		require.False(t, ok)
	})
	t.Run("dynamic pricing follows the leased share", func(t *testing.T) {
		p := base
		p.DynamicBps = 5000 // +50 % when all are leased
		d := testDaemon(t, p)
		terms, _ := d.terms(h100, now, 5000) // half leased: +25 %
		require.Equal(t, "2500000uusdc", terms.PriceOnDemand.String())
		require.Equal(t, "1125000uusdc", terms.PricePreemptible.String())
	})
	t.Run("a calendar publishes its windows, at most max_windows", func(t *testing.T) {
		p := base
		p.Availability = []config.Availability{{Days: "daily", From: "20:00", To: "06:00"}}
		d := testDaemon(t, p)
		terms, _ := d.terms(h100, now, 0)
		require.Len(t, terms.Windows, 7)
		require.Equal(t, time.Date(2026, 12, 2, 20, 0, 0, 0, time.UTC), terms.Windows[0].Start)
		require.Equal(t, time.Date(2026, 12, 3, 6, 0, 0, 0, time.UTC), terms.Windows[0].End)
		d.params.Offer.MaxWindows = 3
		terms, _ = d.terms(h100, now, 0)
		require.Len(t, terms.Windows, 3)
	})
}

func TestSameTerms(t *testing.T) {
	now := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	want := offertypes.OfferTerms{PriceOnDemand: coin("2000000uusdc"), PricePreemptible: coin("900000uusdc"), Lanes: 7, Workloads: 7, MaxDurationSeconds: 3600}
	windows := func(lastEnd time.Time) []offertypes.Window {
		return []offertypes.Window{{Start: now, End: now.Add(time.Hour)}, {Start: lastEnd.Add(-time.Hour), End: lastEnd}}
	}
	for _, tc := range []struct {
		name string
		edit func(h, w *offertypes.OfferTerms)
		same bool
	}{
		{"identical", func(h, w *offertypes.OfferTerms) {}, true},
		{"price changed", func(h, w *offertypes.OfferTerms) { h.PriceOnDemand = coin("1900000uusdc") }, false},
		{"lane dropped", func(h, w *offertypes.OfferTerms) { h.PricePreemptible = nil }, false},
		{"lanes differ", func(h, w *offertypes.OfferTerms) { h.Lanes = 1 }, false},
		{"max duration differs", func(h, w *offertypes.OfferTerms) { h.MaxDurationSeconds = 7200 }, false},
		{"an allowlist set by hand is replaced", func(h, w *offertypes.OfferTerms) { h.ImageAllowlist = []string{"sha256:abcd"} }, false},
		{"windows reaching past half the horizon stay", func(h, w *offertypes.OfferTerms) {
			h.Windows, w.Windows = windows(now.Add(5*24*time.Hour)), windows(now.Add(7*24*time.Hour))
		}, true},
		{"windows running out are republished", func(h, w *offertypes.OfferTerms) {
			h.Windows, w.Windows = windows(now.Add(2*24*time.Hour)), windows(now.Add(7*24*time.Hour))
		}, false},
		{"a calendar added", func(h, w *offertypes.OfferTerms) { w.Windows = windows(now.Add(7 * 24 * time.Hour)) }, false},
		{"a calendar removed", func(h, w *offertypes.OfferTerms) { h.Windows = windows(now.Add(7 * 24 * time.Hour)) }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, w := want, want
			tc.edit(&h, &w)
			require.Equal(t, tc.same, sameTerms(h, w, now))
		})
	}
}

func TestLeasedShare(t *testing.T) {
	o := offertypes.Offer{Id: 1, GpuUuids: []string{"a", "b", "c", "d"}, OccupiedGpuUuids: []string{"b"}}
	in := map[string]offertypes.Offer{"a": o, "b": o, "c": o, "d": o}
	require.Equal(t, uint32(2500), leasedShare([]string{"a", "b", "c", "d"}, in))
	require.Equal(t, uint32(0), leasedShare([]string{"e"}, in), "not in an offer: not leased")
	require.Equal(t, uint32(0), leasedShare(nil, in))
}

func TestHealth(t *testing.T) {
	var h Health
	now := time.Now()
	r := h.report(now, 5*time.Second)
	require.False(t, r.OK)
	require.Len(t, r.Issues, 2)

	h.block(42, now)
	h.sampled(now)
	h.proofs(3)
	r = h.report(now.Add(10*time.Second), 5*time.Second)
	require.True(t, r.OK, r.Issues)
	require.Equal(t, int64(42), r.Height)
	require.Equal(t, uint64(3), r.ProofsSent)
	r = h.report(now.Add(16*time.Second), 5*time.Second)
	require.Equal(t, []string{"GPUs not sampled for three intervals"}, r.Issues)

	rec := httptest.NewRecorder()
	h.handler(5*time.Second).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/healthz", nil))
	require.Equal(t, http.StatusOK, rec.Code)
	require.Contains(t, rec.Body.String(), `"ok":true`)
}
