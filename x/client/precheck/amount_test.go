package precheck_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/x/client/precheck"
)

// TestAmount: an amount is plain decimal digits and a denom, positive; the
// SDK's parsers read "0x10uusdc" as 0 of x10uusdc, and that was broadcast.
func TestAmount(t *testing.T) {
	const notAmount = " is not an amount: write plain decimal digits, then the denom, e.g. 1000000ugpu"
	for _, tc := range []struct {
		in, want, err string
	}{
		{in: "1500000uusdc", want: "1500000.000000000000000000uusdc"},
		{in: "1.5usdc", want: "1.500000000000000000usdc"},
		{in: "0.0025ugpu", want: "0.002500000000000000ugpu"},
		{in: "ibc/27394FB092D2ECCD56123C74F36E4C1F926001CEADA9CA97EA622B25F41E5EB2", err: `"ibc/27394FB092D2ECCD56123C74F36E4C1F926001CEADA9CA97EA622B25F41E5EB2"` + notAmount},
		{in: "0x10uusdc", err: `"0x10uusdc" reads as 0 of denom x10uusdc: an amount must be positive, in plain decimal digits`},
		{in: "0uusdc", err: `"0uusdc" reads as 0 of denom uusdc: an amount must be positive, in plain decimal digits`},
		{in: "0.0uusdc", err: `"0.0uusdc" reads as 0 of denom uusdc: an amount must be positive, in plain decimal digits`},
		{in: "+5uusdc", err: `"+5uusdc"` + notAmount},
		{in: "-5uusdc", err: `"-5uusdc"` + notAmount},
		{in: "1_000uusdc", err: `"1_000uusdc"` + notAmount},
		// Syntax alone cannot tell this from 1 of a denom e6uusdc: the
		// payment-denom check (PaymentDenom) refuses that.
		{in: "1e6uusdc", want: "1.000000000000000000e6uusdc"},
		{in: ".5usdc", err: `".5usdc"` + notAmount},
		{in: "5 uusdc", want: "5.000000000000000000uusdc"},
		{in: "", err: `""` + notAmount},
		{in: "1000", err: `"1000" has no denom: write it like 1000ugpu`},
		{in: "2.5", err: `"2.5" has no denom: write it like 2.5ugpu`},
		{in: "5u", err: `"5u"` + notAmount},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := precheck.Amount(tc.in)
			if tc.err != "" {
				require.EqualError(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got.String())
		})
	}
}

// TestCoin: a coin is an amount in whole base units.
func TestCoin(t *testing.T) {
	c, err := precheck.Coin("1500000uusdc")
	require.NoError(t, err)
	require.Equal(t, "1500000uusdc", c.String())
	c, err = precheck.Coin("7.000uatom")
	require.NoError(t, err)
	require.Equal(t, "7uatom", c.String())
	_, err = precheck.Coin("1.5uusdc")
	require.EqualError(t, err, `"1.5uusdc" is a fraction of a base unit: write whole uusdc`)
	_, err = precheck.Coin("0x10uusdc")
	require.EqualError(t, err, `"0x10uusdc" reads as 0 of denom x10uusdc: an amount must be positive, in plain decimal digits`)
}

// TestFeeLists: --fees takes coins, --gas-prices amounts, comma-separated;
// one bad entry refuses the list.
func TestFeeLists(t *testing.T) {
	fees, err := precheck.Coins("500ugpu, 20uusdc")
	require.NoError(t, err)
	require.Equal(t, "500ugpu,20uusdc", fees.String())
	_, err = precheck.Coins("500ugpu,1000")
	require.EqualError(t, err, `"1000" has no denom: write it like 1000ugpu`)
	prices, err := precheck.DecCoins("0.0025ugpu")
	require.NoError(t, err)
	require.Equal(t, "0.002500000000000000ugpu", prices.String())
	_, err = precheck.DecCoins("0.0025")
	require.EqualError(t, err, `"0.0025" has no denom: write it like 0.0025ugpu`)
}
