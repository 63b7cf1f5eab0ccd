package ante

import "strings"

// CanonicalInt reports whether s is written the one way math.Int prints an
// integer: "0", or digits without a leading zero, negative ones after a "-".
// math.Int reads its text with Go's base-0 rules, which also take "0x10"
// (16), "0b1", "0o7", "007" (octal: "00001234567" is 342391), "1_000" and
// "+5": text that reads as one amount to a person or a wallet and is
// another on chain, or the same amount spelled two ways.
func CanonicalInt(s string) bool {
	if s == "0" {
		return true
	}
	return positiveDigits(strings.TrimPrefix(s, "-"))
}

// CanonicalDecimal reports whether s is a plain decimal number: an integer
// as CanonicalInt wants it, then optionally "." and at least one digit, and
// no "-" before a value of zero. It is the form of cosmos.Dec strings that
// are not a math.LegacyDec custom type (gov's tally params, weighted votes),
// which the SDK reads with math.LegacyNewDecFromStr; that parser also takes
// "+0.5", "00.5" and "--0.5" (0.5).
func CanonicalDecimal(s string) bool {
	whole, frac, hasPoint := strings.Cut(s, ".")
	if hasPoint && (frac == "" || !digits(frac)) {
		return false
	}
	if !CanonicalInt(whole) && whole != "-0" {
		return false
	}
	// "-0" is allowed only before a non-zero fraction: "-0.5", not "-0.00".
	return whole != "-0" || strings.Trim(frac, "0") != ""
}

// positiveDigits reports whether s is decimal digits without a leading zero.
func positiveDigits(s string) bool {
	return s != "" && s[0] != '0' && digits(s)
}

// digits reports whether s is decimal digits only.
func digits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
