package web

import (
	"testing"

	"github.com/stretchr/testify/require"

	sdkmath "cosmossdk.io/math"

	"github.com/idlegpu/idlegpu/app"
)

func TestUnits(t *testing.T) {
	u := NewUnits(app.DenomMetadata())
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

	require.Equal(t, "97.5 %", Bps(9750))
	require.Equal(t, "90 %", Bps(9000))
	require.Equal(t, "0.01 %", Bps(1))
	require.Equal(t, "85.5 GB", MiB(81559))
	require.Equal(t, "512 MiB", MiB(512))
	for s, want := range map[uint64]string{40: "40s", 60: "1m", 90: "1m30s", 3600: "1h", 5400: "1h30m", 7200: "2h", 3601: "1h0m1s"} {
		require.Equal(t, want, Seconds(s), "%d s", s)
	}
	require.Equal(t, "555.6 Wh", Energy(2_000_000_000))
	require.Equal(t, "2.778 Wh", Energy(10_000_000))
	require.Equal(t, "1.2 kWh", Energy(4_320_000_000))
	for v, want := range map[float64]string{0: "0", 0.002: "0.002", 0.0049: "0.0049", 92.69: "92.69", 520.51: "520.5", 1234.4: "1234", 0.3: "0.3"} {
		require.Equal(t, want, chartNumber(v), "%v", v)
	}
}

func TestParseAccount(t *testing.T) {
	bech, err := parseAccount("0x81C9461b1d9aeA6fF9CC075E5D0786443b53b0eE")
	require.NoError(t, err)
	require.Equal(t, "0x81C9461b1d9aeA6fF9CC075E5D0786443b53b0eE", evmAddress(bech), "the same 20 bytes both ways")
	again, err := parseAccount(bech)
	require.NoError(t, err)
	require.Equal(t, bech, again)
	for _, bad := range []string{"0x1234", "cosmos1abc", "", "idle1qqqq"} {
		_, err := parseAccount(bad)
		require.ErrorAs(t, err, new(errBadRequest), bad)
	}
}
