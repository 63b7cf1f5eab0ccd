package types_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"cosmossdk.io/math"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/provider/types"
)

// TestStakeAmountDenom: a bond or unbond whose coin has no denom is refused
// before the keeper, which would call "100" not positive, and the error
// says what is missing.
func TestStakeAmountDenom(t *testing.T) {
	noDenom := sdk.Coin{Amount: math.NewInt(100)}
	want := "amount 100 has no denom: write it like 100" + sdk.DefaultBondDenom + ": invalid stake amount"
	for _, tc := range []struct {
		name string
		msg  sdk.Msg
		err  string
	}{
		{"bond without denom", &types.MsgBond{Amount: noDenom}, want},
		{"unbond without denom", &types.MsgUnbond{Amount: noDenom}, want},
		{"bond without amount or denom", &types.MsgBond{}, "amount 0 has no denom: write it like 0" + sdk.DefaultBondDenom + ": invalid stake amount"},
		{"bond", &types.MsgBond{Amount: sdk.NewInt64Coin(sdk.DefaultBondDenom, 100)}, ""},
		{"unbond", &types.MsgUnbond{Amount: sdk.NewInt64Coin(sdk.DefaultBondDenom, 100)}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, ok := tc.msg.(sdk.HasValidateBasic)
			if tc.err == "" && !ok {
				return // nothing to check before the keeper
			}
			require.True(t, ok, "%T has no ValidateBasic: the keeper says %q", tc.msg, "100: must be positive")
			err := v.ValidateBasic()
			if tc.err == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, types.ErrInvalidStake)
			require.Equal(t, tc.err, err.Error())
		})
	}
}
