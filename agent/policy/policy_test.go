package policy

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/agent/config"
	"github.com/idlegpu/idlegpu/app"
)

const h100 = "NVIDIA H100 80GB HBM3"

func TestPrices(t *testing.T) {
	cfg := config.Default(t.TempDir()).Policy
	cfg.DynamicBps = 5000 // +50 % when fully leased
	p, err := NewPrices(cfg)
	require.NoError(t, err)
	for _, tc := range []struct {
		lane Lane
		util uint32
		want int64
	}{
		{OnDemand, 0, 2_000_000}, {OnDemand, 10_000, 3_000_000}, {OnDemand, 5_000, 2_500_000},
		{OnDemand, 20_000, 3_000_000},                              // clamped at 100 %
		{Preemptible, 0, 900_000}, {Preemptible, 3_333, 1_049_985}, // 900000 × 1.16665, rounded up
	} {
		got, ok := p.Ask(h100, tc.lane, tc.util)
		require.True(t, ok)
		require.Equal(t, sdk.NewInt64Coin("uusdc", tc.want), got, "lane %d util %d", tc.lane, tc.util)
	}
	_, ok := p.Ask("NVIDIA A100-SXM4-80GB", OnDemand, 0)
	require.False(t, ok, "no floor, no offer")

	cfg.Prices = append(cfg.Prices, cfg.Prices[0])
	_, err = NewPrices(cfg)
	require.ErrorContains(t, err, "listed twice")
	cfg.Prices = []config.Price{{Model: h100, OnDemand: "-5uusdc"}}
	_, err = NewPrices(cfg)
	require.ErrorContains(t, err, "positive coin")
}

func TestAccepts(t *testing.T) {
	cfg := config.Default(t.TempDir()).Policy
	cfg.ImagePrefixes = []string{"ghcr.io/acme/"}
	ok := Job{Workload: "training", Image: "ghcr.io/acme/train@sha256:00", Model: h100, Duration: time.Hour}
	require.NoError(t, Accepts(cfg, ok))
	bad := ok
	bad.Workload = "interactive"
	require.ErrorContains(t, Accepts(cfg, bad), "workload interactive is not accepted")
	bad = ok
	bad.Image = "docker.io/evil/miner"
	require.ErrorContains(t, Accepts(cfg, bad), "matches no policy.image_prefixes")
	bad = ok
	bad.Duration = 73 * time.Hour
	require.ErrorContains(t, Accepts(cfg, bad), "exceeds policy.max_lease_seconds")

	// The chain's prefix rule (a reference boundary), which the offer publishes.
	cfg.ImagePrefixes = []string{"ghcr.io/acme"}
	bad = ok
	bad.Image = "ghcr.io/acme-evil/miner@sha256:00"
	require.ErrorContains(t, Accepts(cfg, bad), "matches no policy.image_prefixes", "a prefix matches at a reference boundary only")
	require.NoError(t, Accepts(cfg, ok))
	render := ok
	render.Workload = "render"
	cfg.Workloads = append(cfg.Workloads, "render")
	require.NoError(t, Accepts(cfg, render), "a chain workload can be accepted")
}

func TestCalendar(t *testing.T) {
	// Evenings and nights on weekdays in Berlin (UTC+1 in December),
	// all of Saturday.
	c, err := NewCalendar([]config.Availability{
		{Days: "mon-fri", From: "18:00", To: "08:00", TimeZone: "Europe/Berlin"},
		{Days: "sat", From: "00:00", To: "24:00", TimeZone: "Europe/Berlin"},
	})
	require.NoError(t, err)
	now := time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC) // Friday 13:00 in Berlin
	got := c.Windows(now, 72*time.Hour)
	utc := func(d, h int) time.Time { return time.Date(2026, 12, d, h, 0, 0, 0, time.UTC) }
	require.Equal(t, []Window{
		// Fri 18:00 → Sat 08:00 merges with all of Saturday → Sun 00:00 Berlin.
		{utc(4, 17), utc(5, 23)},
		// Mon 18:00 Berlin → clipped at the horizon (Mon 12:00 UTC is before it: none yet).
	}, got)
	got = c.Windows(now, 4*24*time.Hour)
	require.Equal(t, Window{utc(7, 17), utc(8, 7)}, got[1], "Monday evening to Tuesday morning")
	got = c.Windows(now, 3*24*time.Hour+6*time.Hour)
	require.Equal(t, Window{utc(7, 17), utc(7, 18)}, got[1], "clipped at the horizon")

	always, err := NewCalendar(nil)
	require.NoError(t, err)
	require.Equal(t, []Window{{now, now.Add(time.Hour)}}, always.Windows(now, time.Hour))

	for _, bad := range []config.Availability{
		{Days: "someday", From: "1:00", To: "2:00"},
		{Days: "mon", From: "25:00", To: "2:00"},
		{Days: "mon", From: "10:00", To: "10:00"},
		{Days: "mon", From: "10:00", To: "11:00", TimeZone: "Mars/Olympus"},
	} {
		_, err := NewCalendar([]config.Availability{bad})
		require.Error(t, err, "%+v", bad)
	}
}

func TestLimits(t *testing.T) {
	l := NewLimits(85, 700, 3)
	require.False(t, l.Observe("GPU-a", 80, 600_000))
	require.False(t, l.Hot())
	require.False(t, l.Observe("GPU-a", 90, 600_000))
	require.True(t, l.Hot(), "one sample over: refuse new work")
	require.False(t, l.Observe("GPU-a", 91, 600_000))
	require.True(t, l.Observe("GPU-a", 92, 600_000), "the third sample in a row preempts")
	require.False(t, l.Observe("GPU-a", 70, 600_000))
	require.False(t, l.Hot(), "cooled down")
	require.False(t, l.Observe("GPU-b", 60, 750_000))
	require.True(t, l.Hot(), "power counts too")
	off := NewLimits(0, 0, 1)
	require.False(t, off.Observe("GPU-a", 200, 2_000_000))
}

// TestResolvePricesHumanUnits: prices take the chain's display units, in
// any case, as the CLI does, and refuse a denom that is not one of the
// chain's currencies.
func TestResolvePricesHumanUnits(t *testing.T) {
	metas := app.DenomMetadata()
	got, err := ResolvePrices([]config.Price{
		{Model: "A", OnDemand: "2.5usdc/gpu-h", Preemptible: "900000uusdc"},
		{Model: "B", OnDemand: "0.000001usdc"},
		{Model: "C", OnDemand: "2 USDC", Preemptible: "0.9 Usdc/GPU-H"},
	}, metas)
	require.NoError(t, err)
	require.Equal(t, []config.Price{
		{Model: "A", OnDemand: "2500000uusdc", Preemptible: "900000uusdc"},
		{Model: "B", OnDemand: "1uusdc"},
		{Model: "C", OnDemand: "2000000uusdc", Preemptible: "900000uusdc"},
	}, got)
	for _, tc := range []struct {
		price config.Price
		err   string
	}{
		{config.Price{Model: "A", OnDemand: "2 USD"}, `policy.prices[0].on_demand = "2 USD": USD is not a currency of this chain (its currencies: ugpu or gpu, uusdc or usdc)`},
		{config.Price{Model: "A", OnDemand: "2500000"}, `policy.prices[0].on_demand = "2500000": "2500000" has no denom: add one, e.g. 2.5usdc or 2500000uusdc`},
		{config.Price{Model: "A", Preemptible: "7uatom"}, `policy.prices[0].preemptible = "7uatom": uatom is not a currency of this chain (its currencies: ugpu or gpu, uusdc or usdc)`},
		{config.Price{Model: "A", OnDemand: "0.0000001usdc"}, `policy.prices[0].on_demand = "0.0000001usdc": "0.0000001usdc" is a fraction of a base unit: usdc has 6 decimals, the smallest step is 0.000001usdc (1uusdc)`},
		{config.Price{Model: "A", OnDemand: "0usdc"}, `policy.prices[0].on_demand = "0usdc": "0usdc" reads as 0 of denom usdc: an amount must be positive, in plain decimal digits`},
		{config.Price{Model: "A", OnDemand: "0x10uusdc"}, `policy.prices[0].on_demand = "0x10uusdc": "0x10uusdc" reads as 0 of denom x10uusdc: an amount must be positive, in plain decimal digits`},
	} {
		_, err := ResolvePrices([]config.Price{tc.price}, metas)
		var pe *PriceError
		require.ErrorAs(t, err, &pe, tc.err)
		require.Equal(t, 0, pe.Index)
		require.EqualError(t, err, tc.err)
	}
}
