// Package precheck holds the checks idlegpud's tx commands run before they
// sign, so a mistake costs no fee: amounts written plainly, and (online)
// denoms the market takes, GPU models the chain knows and ids that exist.
// The chain's own stateless rules run too, as each message's ValidateBasic.
package precheck

import (
	"fmt"
	"regexp"
	"strings"

	"cosmossdk.io/math"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/base/chaincfg"
)

// amountRe is an amount as people write one: plain decimal digits, an
// optional fraction, then a denom (a space between them, as the SDK
// allows). The SDK's parsers read "0x10uusdc" as 0 of "x10uusdc", which is
// how a typo became a zero price: a zero is refused below.
var amountRe = regexp.MustCompile(`^([0-9]+(?:\.[0-9]+)?)\s*([a-zA-Z][a-zA-Z0-9/:._-]{2,127})$`)

// bareNumberRe is an amount written without its denom.
var bareNumberRe = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?$`)

// ValueError says what is wrong with a value given on the command line. It
// reads after the name of the flag or argument that gave it:
// `--max-price: "0x10uusdc" reads as 0 of denom x10uusdc: ...`.
type ValueError struct {
	Value   string
	Problem string
}

func (e *ValueError) Error() string { return fmt.Sprintf("%q %s", e.Value, e.Problem) }

// Amount reads one positive amount with its denom, e.g. "1500000uusdc" or,
// in a display unit, "1.5usdc".
func Amount(s string) (sdk.DecCoin, error) {
	m := amountRe.FindStringSubmatch(s)
	switch {
	case m == nil && bareNumberRe.MatchString(s):
		return sdk.DecCoin{}, &ValueError{s, fmt.Sprintf("has no denom: write it like %s%s", s, chaincfg.BondDenom)}
	case m == nil:
		return sdk.DecCoin{}, &ValueError{s, "is not an amount: write plain decimal digits, then the denom, e.g. 1000000" + chaincfg.BondDenom}
	}
	amount, err := math.LegacyNewDecFromStr(m[1])
	if err != nil { // more than 18 decimals, or too large
		return sdk.DecCoin{}, &ValueError{s, fmt.Sprintf("is not an amount: %v", err)}
	}
	if !amount.IsPositive() {
		return sdk.DecCoin{}, &ValueError{s, fmt.Sprintf("reads as 0 of denom %s: an amount must be positive, in plain decimal digits", m[2])}
	}
	return sdk.DecCoin{Denom: m[2], Amount: amount}, nil
}

// Coin reads one positive amount in whole base units, e.g. "1500000uusdc".
func Coin(s string) (sdk.Coin, error) {
	d, err := Amount(s)
	if err != nil {
		return sdk.Coin{}, err
	}
	if !d.Amount.IsInteger() {
		return sdk.Coin{}, &ValueError{s, fmt.Sprintf("is a fraction of a base unit: write whole %s", d.Denom)}
	}
	return sdk.NewCoin(d.Denom, d.Amount.TruncateInt()), nil
}

// Coins reads a comma-separated list of Coin, as --fees takes.
func Coins(s string) (sdk.Coins, error) {
	var out sdk.Coins
	for _, part := range strings.Split(s, ",") {
		c, err := Coin(strings.TrimSpace(part))
		if err != nil {
			return nil, err
		}
		out = out.Add(c)
	}
	return out, nil
}

// DecCoins reads a comma-separated list of Amount, as --gas-prices takes.
func DecCoins(s string) (sdk.DecCoins, error) {
	var out sdk.DecCoins
	for _, part := range strings.Split(s, ",") {
		d, err := Amount(strings.TrimSpace(part))
		if err != nil {
			return nil, err
		}
		out = out.Add(d)
	}
	return out, nil
}
