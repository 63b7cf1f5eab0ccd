package ante_test

import (
	"math/big"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"cosmossdk.io/math"

	"github.com/idlegpu/idlegpu/app/ante"
)

func TestCanonicalInt(t *testing.T) {
	for _, s := range []string{"0", "10", "-5", "342391", "1" + strings.Repeat("0", 100)} {
		require.True(t, ante.CanonicalInt(s), s)
	}
	// Each of these is a number to math.Int (or a parse error) that a person
	// would read differently, or the same number spelled another way.
	for _, s := range []string{
		"", "-", "00001234567", "007", "0x10", "0X10", "0b1", "0o7", "1_000", "+5", "+0", "-0", "-05", "--5",
		" 5", "5 ", "1e3", "1.0", "５", "0x", "١",
	} {
		require.False(t, ante.CanonicalInt(s), s)
	}

	// What math.Int would read: octal, hex, binary, underscores.
	for s, want := range map[string]int64{"00001234567": 342391, "0x10": 16, "0b1": 1, "1_000": 1000, "+5": 5, "-0": 0, "007": 7} {
		got, ok := math.NewIntFromString(s)
		require.True(t, ok, s)
		require.Equal(t, want, got.Int64(), s)
	}
}

func TestCanonicalDecimal(t *testing.T) {
	for _, s := range []string{"0", "1", "0.5", "0.0", "-0.5", "10.25", "1.000000000000000000", "-3"} {
		require.True(t, ante.CanonicalDecimal(s), s)
	}
	for _, s := range []string{
		"", "-", ".5", "5.", "-.5", "+0.5", "00.5", "--0.5", "-0", "-0.0", "-0.000", "0x1", "1_0.5", "1.2.3", "1e-3", "0.5 ",
	} {
		require.False(t, ante.CanonicalDecimal(s), s)
	}
}

// FuzzCanonicalInt: CanonicalInt accepts exactly the text that reads, with
// the base-0 rules behind math.Int, as the number it prints back.
func FuzzCanonicalInt(f *testing.F) {
	for _, s := range []string{"0", "10", "-5", "00001234567", "0x10", "0b1", "1_000", "+5", "-0", "007", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		z, ok := new(big.Int).SetString(s, 0)
		require.Equal(t, ok && z.String() == s, ante.CanonicalInt(s), "%q", s)
	})
}

// FuzzCanonicalDecimal: CanonicalDecimal accepts exactly the text that
// math.LegacyNewDecFromStr reads as the number whose printed form, trailing
// zeros aside, is that text.
func FuzzCanonicalDecimal(f *testing.F) {
	for _, s := range []string{"0", "0.5", "-0.5", "+0.5", "00.5", "--0.5", "-0.0", "1.000000000000000000", ".5", "5."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := math.LegacyNewDecFromStr(s)
		if err != nil {
			// Too many decimals or out of range, else the text is malformed.
			if ante.CanonicalDecimal(s) {
				whole, frac, _ := strings.Cut(s, ".")
				require.True(t, len(frac) > math.LegacyPrecision || len(whole) > 60, "%q: %v", s, err)
			}
			return
		}
		require.Equal(t, trimZeros(d.String()) == trimZeros(s), ante.CanonicalDecimal(s), "%q reads as %s", s, d)
	})
}

// trimZeros drops trailing zeros after a decimal point, and the point.
func trimZeros(s string) string {
	if !strings.Contains(s, ".") {
		return s
	}
	return strings.TrimSuffix(strings.TrimRight(s, "0"), ".")
}
