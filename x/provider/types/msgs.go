package types

import (
	errorsmod "cosmossdk.io/errors"

	sdk "github.com/cosmos/cosmos-sdk/types"
)

// ValidateBasic refuses a bond whose coin has no denom before any state is
// read (the CLI and baseapp run it); the keeper checks amount and denom
// against the params.
func (m *MsgBond) ValidateBasic() error { return stakeDenomGiven(m.Amount) }

// ValidateBasic refuses an unbond whose coin has no denom, as MsgBond's.
func (m *MsgUnbond) ValidateBasic() error { return stakeDenomGiven(m.Amount) }

// stakeDenomGiven says a coin without a denom is missing one: the keeper's
// own check would print it as "100: must be positive".
func stakeDenomGiven(c sdk.Coin) error {
	if c.Denom != "" {
		return nil
	}
	amount := "0"
	if !c.Amount.IsNil() {
		amount = c.Amount.String()
	}
	return errorsmod.Wrapf(ErrInvalidStake, "amount %s has no denom: write it like %s%s", amount, amount, sdk.DefaultBondDenom)
}
