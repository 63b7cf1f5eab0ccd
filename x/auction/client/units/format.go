package units

import (
	"fmt"
	"strings"
	"time"

	sdkmath "cosmossdk.io/math"

	sdk "github.com/cosmos/cosmos-sdk/types"
	banktypes "github.com/cosmos/cosmos-sdk/x/bank/types"
)

// Units turns base units into what people read, from the chain's own denom
// metadata (1 usdc = 10^6 uusdc): the page shows what the CLI accepts.
type Units struct {
	byBase map[string]unit
	metas  []banktypes.Metadata
}

type unit struct {
	symbol, display string
	exp             uint32
}

// NewUnits reads the display unit of each denom from its metadata.
func NewUnits(metas []banktypes.Metadata) *Units {
	u := &Units{byBase: map[string]unit{}, metas: metas}
	for _, m := range metas {
		for _, d := range m.DenomUnits {
			if d.Denom == m.Display {
				sym := m.Symbol
				if sym == "" {
					sym = strings.ToUpper(m.Display)
				}
				u.byBase[m.Base] = unit{symbol: sym, display: m.Display, exp: d.Exponent}
			}
		}
	}
	return u
}

// Metadata is what NewUnits was given (the form's price parser needs it).
func (u *Units) Metadata() []banktypes.Metadata { return u.metas }

// Amount writes amount base units of denom in its display unit, with as
// many decimals as needed and at least two ("1.50 USDC", "0.000001 USDC").
func (u *Units) Amount(amount sdkmath.Int, denom string) string {
	un, ok := u.byBase[denom]
	if !ok || amount.IsNil() {
		if amount.IsNil() {
			amount = sdkmath.ZeroInt()
		}
		return amount.String() + " " + denom
	}
	return decimal(amount, un.exp, 2) + " " + un.symbol
}

// Coin is Amount of a coin; an empty coin is "—".
func (u *Units) Coin(c sdk.Coin) string {
	if c.Denom == "" {
		return "—"
	}
	return u.Amount(c.Amount, c.Denom)
}

// Coins writes each coin with Coin, comma separated; none is "0".
func (u *Units) Coins(cs sdk.Coins) string {
	if cs.Empty() {
		return "0"
	}
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = u.Coin(c)
	}
	return strings.Join(parts, ", ")
}

// Float is a base-unit amount as a float in display units, for charts only.
func (u *Units) Float(amount sdkmath.Int, denom string) float64 {
	f, _ := sdkmath.LegacyNewDecFromInt(amount).Float64()
	if un, ok := u.byBase[denom]; ok {
		for range un.exp {
			f /= 10
		}
	}
	return f
}

// Display is the display denom of a base denom ("usdc" for "uusdc").
func (u *Units) Display(denom string) string {
	if un, ok := u.byBase[denom]; ok {
		return un.display
	}
	return denom
}

// Symbol is the display symbol of a base denom (the denom itself if unknown).
func (u *Units) Symbol(denom string) string {
	if un, ok := u.byBase[denom]; ok {
		return un.symbol
	}
	return denom
}

// decimal writes v / 10^exp exactly, trimming zeros to keep at least min
// decimals.
func decimal(v sdkmath.Int, exp uint32, minDecimals int) string {
	neg := v.IsNegative()
	s := v.Abs().String()
	if exp > 0 {
		for len(s) <= int(exp) {
			s = "0" + s
		}
		whole, frac := s[:len(s)-int(exp)], s[len(s)-int(exp):]
		frac = strings.TrimRight(frac, "0")
		for len(frac) < minDecimals && len(frac) < int(exp) {
			frac += "0"
		}
		s = whole
		if frac != "" {
			s += "." + frac
		}
	}
	s = group(s)
	if neg {
		s = "-" + s
	}
	return s
}

// group puts thin separators between thousands of the whole part.
func group(s string) string {
	whole, frac, hasFrac := strings.Cut(s, ".")
	var b strings.Builder
	for i, r := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if hasFrac {
		b.WriteString("." + frac)
	}
	return b.String()
}

// Bps writes basis points as a percentage ("97.5 %").
func Bps(bps uint32) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.2f", float64(bps)/100), "0"), ".") + " %"
}

// MiB writes a memory size in binary units, as the driver reports it: GiB
// from 1 GiB up. A card sold as "80GB" has 79.6 GiB (81,559 MiB), so asking
// for 80GiB would exclude it; one unit everywhere keeps that visible.
func MiB(mib uint64) string {
	if mib >= 1024 {
		return strings.TrimSuffix(fmt.Sprintf("%.1f", float64(mib)/1024), ".0") + " GiB"
	}
	return fmt.Sprintf("%d MiB", mib)
}

// Seconds writes a duration the way the form accepts it ("2h", "1h30m", "45s").
func Seconds(s uint64) string {
	out := (time.Duration(s) * time.Second).String()
	if strings.HasSuffix(out, "m0s") {
		out = strings.TrimSuffix(out, "0s")
	}
	if strings.HasSuffix(out, "h0m") {
		out = strings.TrimSuffix(out, "0m")
	}
	return out
}
