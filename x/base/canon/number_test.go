package canon_test

import (
	"math/big"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"cosmossdk.io/math"

	"github.com/idlegpu/idlegpu/x/base/canon"
)

// badInts are integers a person, a wallet or JavaScript would read as one
// number and math.Int as another, or the same number spelled another way,
// or no number at all.
var badInts = []string{
	"00001234567", "0x10", "0X10", "0b1", "0o7", "1_000", "+5", "01000", " 5", "5 ", "-0", "1e3", "",
	"-", "--5", "1.0", "５", "١", "0x",
}

func TestParseInt(t *testing.T) {
	for _, s := range []string{"0", "5", "-5", "342391", "1" + strings.Repeat("0", 100)} {
		z, err := canon.ParseInt("amount", s)
		require.NoError(t, err, s)
		require.Equal(t, s, z.String())
	}
	for _, s := range badInts {
		_, err := canon.ParseInt("amount", s)
		var ne *canon.NumberError
		require.ErrorAs(t, err, &ne, "%q", s)
		require.Equal(t, canon.NumberError{Field: "amount", Text: s, Want: canon.WantInt}, *ne)
	}
	_, err := canon.ParseInt("body.messages[0].amount[0].amount", "0x10")
	require.EqualError(t, err, `body.messages[0].amount[0].amount: "0x10" is not a canonical decimal integer`)
	_, err = canon.ParseInt("", "007")
	require.EqualError(t, err, `"007" is not a canonical decimal integer`)

	// What math.Int reads the refused text as: octal, hex, underscores.
	for s, want := range map[string]int64{"00001234567": 342391, "0x10": 16, "1_000": 1000, "+5": 5, "01000": 512, "-0": 0} {
		got, ok := math.NewIntFromString(s)
		require.True(t, ok, s)
		require.Equal(t, want, got.Int64(), s)
	}
}

func TestParseUint64(t *testing.T) {
	for s, want := range map[string]uint64{"0": 0, "12": 12, "18446744073709551615": 1<<64 - 1} {
		got, err := canon.ParseUint64("job_id", s)
		require.NoError(t, err, s)
		require.Equal(t, want, got, s)
	}
	for s, want := range map[string]string{
		"007":                  `job_id: "007" is not a canonical decimal integer`,
		"+7":                   `job_id: "+7" is not a canonical decimal integer`,
		"":                     `job_id: "" is not a canonical decimal integer`,
		"-1":                   `job_id: "-1" is not an integer from 0 to 18446744073709551615`,
		"18446744073709551616": `job_id: "18446744073709551616" is not an integer from 0 to 18446744073709551615`,
	} {
		_, err := canon.ParseUint64("job_id", s)
		require.EqualError(t, err, want, s)
	}
}

func TestDecimal(t *testing.T) {
	for _, s := range []string{"0", "1", "0.5", "0.0", "-0.5", "10.25", "1.000000000000000000", "-3"} {
		require.NoError(t, canon.CheckDecimal("weight", s), s)
	}
	for _, s := range []string{"", ".5", "5.", "+0.5", "00.5", "--0.5", "-0", "-0.0", "0x1", "1_0.5", "1e-3", "0.5 "} {
		require.EqualError(t, canon.CheckDecimal("weight", s), `weight: "`+s+`" is not a canonical decimal number`, s)
	}
}

// FuzzParseInt: whatever ParseInt accepts, math.Int (Go's base-0 rules,
// as the chain reads it) and a plain decimal reader read as the same number,
// the one ParseInt returns and prints back as the text; and it accepts
// every integer as math.Int prints it. It never panics.
func FuzzParseInt(f *testing.F) {
	for _, s := range append([]string{"0", "10", "-5", "342391", "18446744073709551616"}, badInts...) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		z, err := canon.ParseInt("f", s)
		chain, chainOK := math.NewIntFromString(s)
		if err != nil {
			require.Nil(t, z)
			if chainOK {
				require.NotEqual(t, s, chain.String(), "refused the text math.Int prints: %q", s)
			}
			return
		}
		plain, ok := new(big.Int).SetString(s, 10)
		require.True(t, ok, "%q", s)
		require.Zero(t, plain.Cmp(z), "%q", s)
		require.Equal(t, s, z.String())
		base0, ok := new(big.Int).SetString(s, 0)
		require.True(t, ok, "%q", s)
		require.Zero(t, base0.Cmp(z), "%q: base 0 reads %s", s, base0)
		if chainOK { // within math.Int's 256 bits
			require.Zero(t, chain.BigInt().Cmp(z), "%q: math.Int reads %s", s, chain)
		}
	})
}
