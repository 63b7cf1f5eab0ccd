package canon

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"
)

// What a refused text is not, as NumberError says it.
const (
	// WantInt is an integer's canonical form.
	WantInt = "a canonical decimal integer"
	// WantDecimal is a decimal number's canonical form.
	WantDecimal = "a canonical decimal number"
	// WantExactJSON is a 64-bit integer written as a JSON number past 2^53:
	// JavaScript's JSON.parse rounds it, Go reads it exactly.
	WantExactJSON = "a JSON number JavaScript reads exactly: write it as a string"
	// WantUint64 is an integer ParseUint64 can return.
	WantUint64 = "an integer from 0 to 18446744073709551615"
)

// maxExactJSON is the largest integer JavaScript's numbers hold exactly,
// 2^53 − 1 (Number.MAX_SAFE_INTEGER).
const maxExactJSON = 1<<53 - 1

// NumberError refuses a number's text, naming where it was found: a JSON
// path such as body.messages[0].amount[0].amount, or a form field.
type NumberError struct {
	Field string
	Text  string
	Want  string // WantInt, WantDecimal, ...
}

// Error is `field: "text" is not <want>`.
func (e *NumberError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("%q is not %s", e.Text, e.Want)
	}
	return fmt.Sprintf("%s: %q is not %s", e.Field, e.Text, e.Want)
}

// Int reports whether s is written the one way math.Int prints an integer:
// "0", or digits without a leading zero, negative ones after a "-".
// math.Int reads its text with Go's base-0 rules, which also take "0x10"
// (16), "0b1", "0o7", "007" (octal: "00001234567" is 342391), "1_000" and
// "+5": text that reads as one amount to a person or a wallet and is
// another on chain, or the same amount spelled two ways.
func Int(s string) bool {
	if s == "0" {
		return true
	}
	return positiveDigits(strings.TrimPrefix(s, "-"))
}

// Decimal reports whether s is a plain decimal number: an integer as Int
// wants it, then optionally "." and at least one digit, and no "-" before a
// value of zero. It is the form math.LegacyDec prints (in JSON, and in
// cosmos.Dec strings that are not a LegacyDec custom type: gov's tally
// params, weighted votes), which math.LegacyNewDecFromStr reads; that
// parser also takes "+0.5", "00.5" and "--0.5" (0.5).
func Decimal(s string) bool {
	whole, frac, hasPoint := strings.Cut(s, ".")
	if hasPoint && (frac == "" || !digits(frac)) {
		return false
	}
	if !Int(whole) && whole != "-0" {
		return false
	}
	// "-0" is allowed only before a non-zero fraction: "-0.5", not "-0.00".
	return whole != "-0" || strings.Trim(frac, "0") != ""
}

// CheckInt returns a *NumberError naming field unless text is Int.
func CheckInt(field, text string) error {
	if !Int(text) {
		return &NumberError{Field: field, Text: text, Want: WantInt}
	}
	return nil
}

// CheckDecimal returns a *NumberError naming field unless text is Decimal.
func CheckDecimal(field, text string) error {
	if !Decimal(text) {
		return &NumberError{Field: field, Text: text, Want: WantDecimal}
	}
	return nil
}

// ParseInt reads text, a JSON string's or a form field's, as a canonical
// decimal integer; anything else is a *NumberError naming field.
func ParseInt(field, text string) (*big.Int, error) {
	if err := CheckInt(field, text); err != nil {
		return nil, err
	}
	z, _ := new(big.Int).SetString(text, 10) // Int text always reads
	return z, nil
}

// ParseUint64 is ParseInt for a uint64: a negative or larger integer is a
// *NumberError too.
func ParseUint64(field, text string) (uint64, error) {
	if err := CheckInt(field, text); err != nil {
		return 0, err
	}
	n, err := strconv.ParseUint(text, 10, 64)
	if err != nil {
		return 0, &NumberError{Field: field, Text: text, Want: WantUint64}
	}
	return n, nil
}

// checkExactJSON refuses a JSON number (canonical as Int) that JavaScript
// would round.
func checkExactJSON(field, literal string) error {
	n, err := strconv.ParseUint(strings.TrimPrefix(literal, "-"), 10, 64)
	if err != nil || n > maxExactJSON {
		return &NumberError{Field: field, Text: literal, Want: WantExactJSON}
	}
	return nil
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
