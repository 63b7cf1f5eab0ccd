package units_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	sdkmath "cosmossdk.io/math"

	"github.com/idlegpu/idlegpu/app"
	"github.com/idlegpu/idlegpu/x/auction/client/units"
)

func TestUnits(t *testing.T) {
	u := units.NewUnits(app.DenomMetadata())
	for _, tc := range []struct {
		amount int64
		denom  string
		want   string
	}{
		{0, "uusdc", "0.00 USDC"},
		{1, "uusdc", "0.000001 USDC"},
		{5_000, "uusdc", "0.005 USDC"},
		{11_112, "uusdc", "0.011112 USDC"},
		{1_500_000, "uusdc", "1.50 USDC"},
		{6_000_000, "uusdc", "6.00 USDC"},
		{1_234_567_890_123, "uusdc", "1,234,567.890123 USDC"},
		{-2_500_000, "uusdc", "-2.50 USDC"},
		{200_000_000, "ugpu", "200.00 GPU"},
		{42, "ibc/XYZ", "42 ibc/XYZ"},
	} {
		require.Equal(t, tc.want, u.Amount(sdkmath.NewInt(tc.amount), tc.denom))
	}
	require.Equal(t, "usdc", u.Display("uusdc"))
	require.Equal(t, 1.5, u.Float(sdkmath.NewInt(1_500_000), "uusdc"))

	require.Equal(t, "97.5 %", units.Bps(9750))
	require.Equal(t, "90 %", units.Bps(9000))
	require.Equal(t, "0.01 %", units.Bps(1))
	require.Equal(t, "79.6 GiB", units.MiB(81559))
	require.Equal(t, "80 GiB", units.MiB(81920))
	require.Equal(t, "512 MiB", units.MiB(512))
	for s, want := range map[uint64]string{40: "40s", 60: "1m", 90: "1m30s", 3600: "1h", 5400: "1h30m", 7200: "2h", 3601: "1h0m1s"} {
		require.Equal(t, want, units.Seconds(s), "%d s", s)
	}
}
