package ante

import "github.com/idlegpu/idlegpu/x/base/canon"

// CanonicalInt reports whether s is written the one way math.Int prints an
// integer; the rule is app/canon's (canon.Int), the one every path a
// person signs holds numbers to.
func CanonicalInt(s string) bool { return canon.Int(s) }

// CanonicalDecimal reports whether s is a plain decimal number, as
// canon.Decimal says.
func CanonicalDecimal(s string) bool { return canon.Decimal(s) }
