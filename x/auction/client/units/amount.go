package units

import (
	"errors"
	"fmt"
	"math/big"
	"regexp"
	"strings"

	sdkmath "cosmossdk.io/math"

	sdk "github.com/cosmos/cosmos-sdk/types"
	banktypes "github.com/cosmos/cosmos-sdk/x/bank/types"

	"github.com/idlegpu/idlegpu/x/base/chaincfg"
	"github.com/idlegpu/idlegpu/x/client/precheck"
)

// perGPUHour is the rate a price may be written with: "1.5usdc/gpu-h".
const perGPUHour = "gpu-h"

// maxExponent bounds a unit's exponent: 10^97 of the smallest amount a
// decimal holds (10^-18) is beyond any math.Int, so a larger exponent (from
// a node's metadata) can only read as too large, and is not computed.
const maxExponent = 96

// bareNumberRe is an amount written without its denom.
var bareNumberRe = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?$`)

// ParsePrice reads a price per GPU-hour as ParseCoin reads an amount,
// optionally followed by "/gpu-h": "1.5usdc/gpu-h", "1.5 USDC",
// "1500000uusdc". An error names the price as it was typed.
func ParsePrice(s string, metas []banktypes.Metadata) (sdk.Coin, error) {
	typed := strings.TrimSpace(s)
	amount := typed
	if i := strings.LastIndex(typed, "/"); i >= 0 && strings.EqualFold(strings.TrimSpace(typed[i+1:]), perGPUHour) {
		amount = typed[:i]
	}
	c, err := ParseCoin(amount, metas, chaincfg.USDCDenom)
	var ve *precheck.ValueError
	if errors.As(err, &ve) {
		ve.Value = typed
	}
	return c, err
}

// ParseCoin reads one positive amount as people type it, the one way every
// command reads amounts: in base units ("50000uusdc"; a base denom is
// exact), or in a unit the chain's denom metadata names, matched in any
// case and scaled to base units ("0.05usdc", "0.05 USDC"). A denom the
// metadata does not name is a base denom. Refused: a fraction of a base
// unit (naming the smallest step), and a bare number, which could mean
// units a millionfold apart; hint is the base denom the bare number's
// error writes its example in.
func ParseCoin(s string, metas []banktypes.Metadata, hint string) (sdk.Coin, error) {
	s = strings.TrimSpace(s)
	if bareNumberRe.MatchString(s) {
		return sdk.Coin{}, &precheck.ValueError{Value: s, Problem: "has no denom: add one, e.g. " + example(s, metas, hint)}
	}
	dec, err := precheck.Amount(s)
	if err != nil {
		return sdk.Coin{}, err
	}
	u, err := findUnit(dec.Denom, metas)
	if err != nil {
		return sdk.Coin{}, &precheck.ValueError{Value: s, Problem: err.Error()}
	}
	if u.exp > maxExponent {
		return sdk.Coin{}, &precheck.ValueError{Value: s, Problem: "is too large"}
	}
	base, whole := scale(dec.Amount, u.exp)
	switch {
	case !whole && u.exp == 0:
		return sdk.Coin{}, &precheck.ValueError{Value: s, Problem: "is a fraction of a base unit: write whole " + u.base}
	case !whole:
		return sdk.Coin{}, &precheck.ValueError{Value: s, Problem: fmt.Sprintf(
			"is a fraction of a base unit: %s has %d decimals, the smallest step is %s%s (1%s)",
			u.name, u.exp, plain(big.NewInt(1), u.exp), u.name, u.base)}
	case base.BitLen() > sdkmath.MaxBitLen:
		return sdk.Coin{}, &precheck.ValueError{Value: s, Problem: "is too large"}
	}
	c := sdk.Coin{Denom: u.base, Amount: sdkmath.NewIntFromBigInt(base)}
	if err := c.Validate(); err != nil { // a node's metadata named an invalid base
		return sdk.Coin{}, &precheck.ValueError{Value: s, Problem: err.Error()}
	}
	return c, nil
}

// unitRef is a unit an amount is written in: name, worth 10^exp of base.
type unitRef struct {
	base, name string
	exp        uint32
}

// findUnit finds the unit denom names. A base denom matches exactly and
// first; then any other unit, alias or the display unit's symbol matches
// in any case, so "USDC" as printed reads back. A base denom written in
// another case is refused rather than taken as a new denom.
func findUnit(denom string, metas []banktypes.Metadata) (unitRef, error) {
	for _, m := range metas {
		if m.Base == denom {
			return unitRef{base: m.Base, name: m.Base}, nil
		}
	}
	var found []unitRef
	wrongCase := ""
	for _, m := range metas {
		if strings.EqualFold(m.Base, denom) {
			wrongCase = m.Base
		}
		for _, u := range m.DenomUnits {
			if u == nil {
				continue
			}
			names := append([]string{u.Denom}, u.Aliases...)
			if u.Denom == m.Display && m.Symbol != "" {
				names = append(names, m.Symbol)
			}
			for _, n := range names {
				ref := unitRef{base: m.Base, name: u.Denom, exp: u.Exponent}
				if n != m.Base && strings.EqualFold(n, denom) && !contains(found, ref) {
					found = append(found, ref)
				}
			}
		}
	}
	switch {
	case len(found) == 1:
		return found[0], nil
	case len(found) > 1:
		bases := make([]string, len(found))
		for i, f := range found {
			bases[i] = f.base
		}
		return unitRef{}, fmt.Errorf("names units of several currencies (%s): write it in base units", strings.Join(bases, ", "))
	case wrongCase != "":
		return unitRef{}, fmt.Errorf("names the base denom %s in another case: base denoms are exact, write %s", wrongCase, wrongCase)
	}
	// "usdc/h" or, outside a price, "usdc/gpu-h" is a denom by syntax
	// alone; taken as a base denom it would be a currency nobody has.
	if head, _, ok := strings.Cut(denom, "/"); ok && knownName(head, metas) {
		return unitRef{}, fmt.Errorf("names %s, which is no denom: write the unit alone (only a price may end in /%s)", denom, perGPUHour)
	}
	return unitRef{base: denom, name: denom}, nil
}

// knownName reports whether name is, in any case, a base denom, unit,
// alias or symbol of metas.
func knownName(name string, metas []banktypes.Metadata) bool {
	for _, m := range metas {
		if strings.EqualFold(m.Base, name) || (m.Symbol != "" && strings.EqualFold(m.Symbol, name)) {
			return true
		}
		for _, u := range m.DenomUnits {
			if u == nil {
				continue
			}
			for _, n := range append([]string{u.Denom}, u.Aliases...) {
				if strings.EqualFold(n, name) {
					return true
				}
			}
		}
	}
	return false
}

func contains(refs []unitRef, r unitRef) bool {
	for _, x := range refs {
		if x == r {
			return true
		}
	}
	return false
}

// scale is d × 10^exp in base units, and whether that is a whole number.
func scale(d sdkmath.LegacyDec, exp uint32) (*big.Int, bool) {
	v := new(big.Int).Mul(d.BigInt(), pow10(exp))
	q, r := new(big.Int).QuoRem(v, pow10(sdkmath.LegacyPrecision), new(big.Int))
	return q, r.Sign() == 0
}

func pow10(exp uint32) *big.Int {
	return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(exp)), nil)
}

// plain writes v / 10^exp as decimal digits the parser reads back: no
// grouping, no trailing zeros.
func plain(v *big.Int, exp uint32) string {
	s := v.String()
	if exp == 0 {
		return s
	}
	for len(s) <= int(exp) {
		s = "0" + s
	}
	whole, frac := s[:len(s)-int(exp)], strings.TrimRight(s[len(s)-int(exp):], "0")
	if frac == "" {
		return whole
	}
	return whole + "." + frac
}

// example writes the bare number n with a denom both ways, display and
// base units, as the hint's metadata names them: a whole number as base
// units ("50000" → "0.05usdc or 50000uusdc"), one with decimals as display
// units ("2.5" → "2.5usdc or 2500000uusdc"), else a plain one.
func example(n string, metas []banktypes.Metadata, hint string) string {
	display, exp := hint, uint32(0)
	for _, m := range metas {
		for _, u := range m.DenomUnits {
			if m.Base == hint && u != nil && u.Denom == m.Display && u.Exponent <= maxExponent {
				display, exp = u.Denom, u.Exponent
			}
		}
	}
	if exp == 0 {
		if strings.Contains(n, ".") {
			return "1" + hint
		}
		return n + hint
	}
	fallback := "1" + display + " or " + pow10(exp).String() + hint
	if !strings.Contains(n, ".") {
		v, _ := new(big.Int).SetString(n, 10) // bareNumberRe: digits only
		if v.Sign() == 0 {
			return fallback
		}
		return plain(v, exp) + display + " or " + v.String() + hint
	}
	d, err := sdkmath.LegacyNewDecFromStr(n)
	if err != nil || !d.IsPositive() {
		return fallback
	}
	base, whole := scale(d, exp)
	if !whole {
		return fallback
	}
	return n + display + " or " + base.String() + hint
}
