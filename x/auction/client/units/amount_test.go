package units_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	banktypes "github.com/cosmos/cosmos-sdk/x/bank/types"

	"github.com/idlegpu/idlegpu/x/auction/client/units"
	"github.com/idlegpu/idlegpu/x/base/chaincfg"
	"github.com/idlegpu/idlegpu/x/client/precheck"
)

const notAmount = " is not an amount: write plain decimal digits, then the denom, e.g. 1000000ugpu"

// TestParsePrice: every way people write a price reads as the same base
// amount; every refusal says exactly what to write instead.
func TestParsePrice(t *testing.T) {
	metas := chaincfg.DenomMetadata()
	for _, tc := range []struct{ in, want string }{
		{"1.5usdc", "1500000uusdc"},
		{"1.5 usdc", "1500000uusdc"},
		{"1.5 USDC", "1500000uusdc"},
		{"1.5Usdc", "1500000uusdc"},
		{"1.5USDC/gpu-h", "1500000uusdc"},
		{"1.5usdc/gpu-h", "1500000uusdc"},
		{"1.5 usdc / GPU-H", "1500000uusdc"},
		{" 0.25usdc/gpu-h ", "250000uusdc"},
		{"1500000uusdc", "1500000uusdc"},
		{"1500000uusdc/gpu-h", "1500000uusdc"},
		{"1500000 uusdc", "1500000uusdc"},
		{"1.500000usdc", "1500000uusdc"},
		{"0001.5usdc", "1500000uusdc"},
		{"0.000001usdc", "1uusdc"},
		{"0.05usdc", "50000uusdc"},
		{"50000uusdc", "50000uusdc"},
		{"2gpu/gpu-h", "2000000ugpu"},
		{"2 GPU", "2000000ugpu"},
		{"7uatom", "7uatom"}, // no metadata: a base denom
		{"3ibc/27394FB092D2ECCD56123C74F36E4C1F926001CEADA9CA97EA622B25F41E5EB2/gpu-h",
			"3ibc/27394FB092D2ECCD56123C74F36E4C1F926001CEADA9CA97EA622B25F41E5EB2"},
		{strings.Repeat("9", 70) + "usdc", strings.Repeat("9", 70) + "000000uusdc"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			c, err := units.ParsePrice(tc.in, metas)
			require.NoError(t, err)
			require.Equal(t, tc.want, c.String())
		})
	}
	tooLarge := "1" + strings.Repeat("0", 72) + "usdc"
	for _, tc := range []struct{ in, err string }{
		{"50000", `"50000" has no denom: add one, e.g. 0.05usdc or 50000uusdc`},
		{"50000/gpu-h", `"50000/gpu-h" has no denom: add one, e.g. 0.05usdc or 50000uusdc`},
		{"1.5", `"1.5" has no denom: add one, e.g. 1.5usdc or 1500000uusdc`},
		{"1.0000005", `"1.0000005" has no denom: add one, e.g. 1usdc or 1000000uusdc`},
		{"0", `"0" has no denom: add one, e.g. 1usdc or 1000000uusdc`},
		{"1.0000005usdc", `"1.0000005usdc" is a fraction of a base unit: usdc has 6 decimals, the smallest step is 0.000001usdc (1uusdc)`},
		{"0.0000001USDC/gpu-h", `"0.0000001USDC/gpu-h" is a fraction of a base unit: usdc has 6 decimals, the smallest step is 0.000001usdc (1uusdc)`},
		{"1.5uusdc", `"1.5uusdc" is a fraction of a base unit: write whole uusdc`},
		{"1.5uatom", `"1.5uatom" is a fraction of a base unit: write whole uatom`},
		{"1500000UUSDC", `"1500000UUSDC" names the base denom uusdc in another case: base denoms are exact, write uusdc`},
		{"1500000Uusdc/gpu-h", `"1500000Uusdc/gpu-h" names the base denom uusdc in another case: base denoms are exact, write uusdc`},
		{"0usdc", `"0usdc" reads as 0 of denom usdc: an amount must be positive, in plain decimal digits`},
		{"0x10uusdc", `"0x10uusdc" reads as 0 of denom x10uusdc: an amount must be positive, in plain decimal digits`},
		{"usdc", `"usdc"` + notAmount},
		{"", `""` + notAmount},
		{"/gpu-h", `"/gpu-h"` + notAmount},
		{"-1usdc", `"-1usdc"` + notAmount},
		{"1,5usdc", `"1,5usdc"` + notAmount},
		{"1.5usdc/h", `"1.5usdc/h" names usdc/h, which is no denom: write the unit alone (only a price may end in /gpu-h)`},
		{"2USDC/gpu-h/gpu-h", `"2USDC/gpu-h/gpu-h" names USDC/gpu-h, which is no denom: write the unit alone (only a price may end in /gpu-h)`},
		{tooLarge, `"` + tooLarge + `" is too large`},
	} {
		t.Run(tc.in, func(t *testing.T) {
			_, err := units.ParsePrice(tc.in, metas)
			require.EqualError(t, err, tc.err)
		})
	}
}

// TestParseCoin: a bare number's example is in the denom the amount is
// usually in; units, aliases and symbols of any metadata read in any case.
func TestParseCoin(t *testing.T) {
	metas := chaincfg.DenomMetadata()
	for _, tc := range []struct{ in, hint, err string }{
		{"100", "ugpu", `"100" has no denom: add one, e.g. 0.0001gpu or 100ugpu`},
		{"2.5", "ugpu", `"2.5" has no denom: add one, e.g. 2.5gpu or 2500000ugpu`},
		{"1500000", "ugpu", `"1500000" has no denom: add one, e.g. 1.5gpu or 1500000ugpu`},
		{"7", "uatom", `"7" has no denom: add one, e.g. 7uatom`},
		{"7.5", "uatom", `"7.5" has no denom: add one, e.g. 1uatom`},
	} {
		_, err := units.ParseCoin(tc.in, metas, tc.hint)
		require.EqualError(t, err, tc.err, tc.in)
	}

	eth := banktypes.Metadata{
		Base: "wei", Display: "ether", Symbol: "ETH",
		DenomUnits: []*banktypes.DenomUnit{
			{Denom: "wei", Exponent: 0}, {Denom: "gwei", Exponent: 9, Aliases: []string{"nanoether"}}, nil, {Denom: "ether", Exponent: 18},
		},
	}
	for _, tc := range []struct{ in, want string }{
		{"1.5ETH", "1500000000000000000wei"},
		{"1.5 ether", "1500000000000000000wei"},
		{"2 GWEI", "2000000000wei"},
		{"3 NanoEther", "3000000000wei"},
		{"4wei", "4wei"},
		{"5 usdc", "5000000uusdc"},
	} {
		c, err := units.ParseCoin(tc.in, append([]banktypes.Metadata{eth}, metas...), "wei")
		require.NoError(t, err, tc.in)
		require.Equal(t, tc.want, c.String(), tc.in)
	}
	_, err := units.ParseCoin("1WEI", []banktypes.Metadata{eth}, "wei")
	require.EqualError(t, err, `"1WEI" names the base denom wei in another case: base denoms are exact, write wei`)
	_, err = units.ParseCoin("0.0000000001gwei", []banktypes.Metadata{eth}, "wei")
	require.EqualError(t, err, `"0.0000000001gwei" is a fraction of a base unit: gwei has 9 decimals, the smallest step is 0.000000001gwei (1wei)`)

	usd := func(base, display string) banktypes.Metadata {
		return banktypes.Metadata{Base: base, Display: display, DenomUnits: []*banktypes.DenomUnit{{Denom: base}, {Denom: display, Exponent: 6}}}
	}
	_, err = units.ParseCoin("2usd", []banktypes.Metadata{usd("uusd", "usd"), usd("ausd", "USD")}, "uusd")
	require.EqualError(t, err, `"2usd" names units of several currencies (uusd, ausd): write it in base units`)

	// A node's metadata is not trusted to be small: no exponent is computed
	// past what any amount could fit.
	huge := banktypes.Metadata{Base: "uhuge", Display: "huge", DenomUnits: []*banktypes.DenomUnit{{Denom: "uhuge"}, {Denom: "huge", Exponent: 4_000_000_000}}}
	_, err = units.ParseCoin("1huge", []banktypes.Metadata{huge}, "uhuge")
	require.EqualError(t, err, `"1huge" is too large`)
	_, err = units.ParseCoin("5", []banktypes.Metadata{huge}, "uhuge")
	require.EqualError(t, err, `"5" has no denom: add one, e.g. 5uhuge`)

	_, err = units.ParseCoin("2usdc/gpu-h", metas, "uusdc")
	require.EqualError(t, err, `"2usdc/gpu-h" names usdc/gpu-h, which is no denom: write the unit alone (only a price may end in /gpu-h)`)

	c, err := units.ParseCoin("1500000uusdc", nil, "uusdc")
	require.NoError(t, err)
	require.Equal(t, "1500000uusdc", c.String(), "without metadata base units still read")
}

// FuzzParsePrice: whatever is typed, ParsePrice never panics; it refuses
// with a ValueError naming what was typed, or returns a valid positive
// coin that reads back as itself from base units and from display units.
func FuzzParsePrice(f *testing.F) {
	for _, s := range []string{
		"1.5usdc/gpu-h", "1.5 USDC", "1500000uusdc", "50000", "0.0000001usdc", "1500000UUSDC", "0x10uusdc", "7uatom",
		"1e6uusdc", "", "/gpu-h", "3ibc/gpu-h/gpu-h", "1" + strings.Repeat("0", 80) + "usdc", "1.0000000000000000001usdc", "\xff", "2 GPU/GPU-H",
	} {
		f.Add(s)
	}
	metas := chaincfg.DenomMetadata()
	display := units.NewUnits(metas)
	f.Fuzz(func(t *testing.T, s string) {
		c, err := units.ParsePrice(s, metas)
		if err != nil {
			var ve *precheck.ValueError
			require.True(t, errors.As(err, &ve), "%q: %v is no ValueError", s, err)
			require.Equal(t, strings.TrimSpace(s), ve.Value)
			return
		}
		require.NoError(t, c.Validate(), "%q", s)
		require.True(t, c.IsPositive(), "%q", s)
		// With the rate written out: a denom of its own may end in "/gpu-h".
		again, err := units.ParsePrice(c.String()+"/gpu-h", metas)
		require.NoError(t, err, "%q reads as %s", s, c)
		require.Equal(t, c.String(), again.String(), "%q", s)
		if d := display.Display(c.Denom); d != c.Denom {
			text := strings.ReplaceAll(strings.TrimSuffix(display.Amount(c.Amount, c.Denom), " "+display.Symbol(c.Denom)), ",", "")
			again, err := units.ParsePrice(text+" "+strings.ToUpper(d)+"/gpu-h", metas)
			require.NoError(t, err, "%q reads as %s, shown as %s", s, c, text)
			require.Equal(t, c.String(), again.String(), "%q shown as %s", s, text)
		}
	})
}
