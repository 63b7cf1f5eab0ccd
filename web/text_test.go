package web

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestEnergy(t *testing.T) {
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
