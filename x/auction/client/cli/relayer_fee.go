package cli

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/spf13/cobra"

	sdkmath "cosmossdk.io/math"

	sdk "github.com/cosmos/cosmos-sdk/types"
	banktypes "github.com/cosmos/cosmos-sdk/x/bank/types"

	"github.com/idlegpu/idlegpu/x/auction/client/units"
)

// bareZeroRe is a zero written without a denom.
var bareZeroRe = regexp.MustCompile(`^0+(\.0+)?$`)

// feeFlag reads a relayer-fee flag as every amount is read
// (units.ParseCoin: "0.05usdc" or "50000uusdc"). Unset, empty or a bare
// zero is no fee, in denom: zero is zero in any unit. Any other bare
// number is refused: it once meant base units in one command and a coin in
// the next. denom is also the unit a refusal's example is written in.
func feeFlag(cmd *cobra.Command, name string, metas []banktypes.Metadata, denom string) (sdk.Coin, error) {
	s, _ := cmd.Flags().GetString(name)
	if s = strings.TrimSpace(s); s == "" || bareZeroRe.MatchString(s) {
		// Not sdk.NewCoin: a malformed signed file's empty denom is for
		// the message's own checks to refuse, not a panic.
		return sdk.Coin{Denom: denom, Amount: sdkmath.ZeroInt()}, nil
	}
	c, err := units.ParseCoin(s, metas, denom)
	if err != nil {
		return sdk.Coin{}, fmt.Errorf("--%s: %w", name, err)
	}
	return c, nil
}

// feeIn is feeFlag for a fee the signed message fixes the denom of; why
// says which denom that is.
func feeIn(cmd *cobra.Command, name string, metas []banktypes.Metadata, denom, why string) (sdk.Coin, error) {
	c, err := feeFlag(cmd, name, metas, denom)
	if err == nil && c.Denom != denom {
		return sdk.Coin{}, fmt.Errorf("--%s %s: %s is paid in %s", name, c, why, denom)
	}
	return c, err
}
