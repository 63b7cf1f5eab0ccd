package types_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"cosmossdk.io/math"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/offer/types"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// usdc builds a coin without NewCoin's checks, so tests can make bad ones.
func usdc(n int64) *sdk.Coin { return &sdk.Coin{Denom: "uusdc", Amount: math.NewInt(n)} }

func marketParams() types.Params {
	p := types.DefaultParams()
	p.PaymentDenoms = []string{"ugpu", "uusdc"}
	return p
}

func TestPriceByLane(t *testing.T) {
	terms := types.OfferTerms{PriceOnDemand: usdc(2), PricePreemptible: usdc(1), Lanes: types.AllLanes}
	for lane, want := range map[types.Lane]int64{types.LANE_ON_DEMAND: 2, types.LANE_RESERVED: 2, types.LANE_PREEMPTIBLE: 1} { //detlint:allow independent cases
		p, ok := terms.Price(lane)
		require.True(t, ok)
		require.Equal(t, *usdc(want), p, lane.String())
	}
	terms.Lanes = uint32(types.LANE_ON_DEMAND)
	_, ok := terms.Price(types.LANE_PREEMPTIBLE)
	require.False(t, ok, "a lane not sold has no price")
	_, ok = terms.Price(types.LANE_ON_DEMAND | types.LANE_RESERVED)
	require.False(t, ok, "a mask is not a lane")
}

func TestCoversWindowsAndMaxDuration(t *testing.T) {
	terms := types.OfferTerms{Windows: []types.Window{
		{Start: t0, End: t0.Add(2 * time.Hour)},
		{Start: t0.Add(5 * time.Hour), End: t0.Add(6 * time.Hour)},
	}}
	cases := []struct {
		name string
		now  time.Time
		dur  uint64
		want bool
	}{
		{"exactly the first window", t0, 7200, true},
		{"one second too long", t0, 7201, false},
		{"before any window", t0.Add(-time.Second), 60, false},
		{"between windows", t0.Add(3 * time.Hour), 60, false},
		{"inside the second", t0.Add(5*time.Hour + 30*time.Minute), 1800, true},
		{"spanning the gap", t0.Add(time.Hour), 5 * 3600, false},
		{"after the last", t0.Add(6 * time.Hour), 1, false},
	}
	for _, tc := range cases {
		require.Equal(t, tc.want, terms.Covers(tc.now, tc.dur), tc.name)
	}
	always := types.OfferTerms{MaxDurationSeconds: 3600}
	require.True(t, always.Covers(t0, 3600), "no windows: always available")
	require.False(t, always.Covers(t0, 3601), "but not longer than max_duration")
	require.False(t, types.OfferTerms{Windows: terms.Windows}.Covers(t0, ^uint64(0)), "a huge duration never overflows into a fit")
}

func TestAllowsImage(t *testing.T) {
	require.True(t, types.OfferTerms{}.AllowsImage("sha256:ffff"), "empty list takes any image")
	terms := types.OfferTerms{ImageAllowlist: []string{"sha256:abcd", "sha256:0123"}}
	require.True(t, terms.AllowsImage("sha256:abcdef00"))
	require.True(t, terms.AllowsImage("sha256:0123"))
	require.False(t, terms.AllowsImage("sha256:abce"))
	require.False(t, terms.AllowsImage(""))
}

// FuzzTermsValidate: arbitrary terms never panic in validation, and terms
// that pass have consistent prices and sorted, disjoint windows.
func FuzzTermsValidate(f *testing.F) {
	f.Add(int64(2_000_000), int64(1_000_000), uint32(7), uint32(15), int64(0), int64(3600), int64(7200), int64(9000), uint64(0), "sha256:abcd")
	f.Add(int64(0), int64(-1), uint32(8), uint32(16), int64(10), int64(5), int64(5), int64(1), uint64(1<<62), "ABCD")
	f.Fuzz(func(t *testing.T, od, pre int64, lanes, workloads uint32, s1, e1, s2, e2 int64, maxDur uint64, allow string) {
		terms := types.OfferTerms{
			PriceOnDemand: usdc(od), PricePreemptible: usdc(pre), Lanes: lanes, Workloads: workloads,
			Windows: []types.Window{
				{Start: t0.Add(time.Duration(s1) * time.Second), End: t0.Add(time.Duration(e1) * time.Second)},
				{Start: t0.Add(time.Duration(s2) * time.Second), End: t0.Add(time.Duration(e2) * time.Second)},
			},
			MaxDurationSeconds: maxDur, ImageAllowlist: []string{allow},
		}
		if terms.Validate(marketParams()) != nil {
			return
		}
		for _, l := range types.Lanes(terms.Lanes) {
			p, ok := terms.Price(l)
			require.True(t, ok)
			require.True(t, p.IsPositive())
		}
		require.True(t, terms.Windows[0].End.Before(terms.Windows[1].Start))
		_ = terms.Covers(t0, maxDur)
	})
}
