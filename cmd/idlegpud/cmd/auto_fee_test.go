package cmd

import (
	"testing"

	"github.com/stretchr/testify/require"

	sdkmath "cosmossdk.io/math"

	sdk "github.com/cosmos/cosmos-sdk/types"
)

// TestDefaultMinGasPrices: the node's floor is the same price in the fee
// token and in USDC, so a fee in either passes it.
func TestDefaultMinGasPrices(t *testing.T) {
	floor, err := sdk.ParseDecCoins(DefaultMinGasPrices)
	require.NoError(t, err)
	require.Equal(t, "0.002500000000000000ugpu,0.002500000000000000uusdc", floor.String())
}

// TestAutoGasPrice: the fee token where the payer can pay for the gas in
// it, else USDC where it can, else the fee token; the fee is the node's,
// ceil(price × gas), so one base unit short is not enough.
func TestAutoGasPrice(t *testing.T) {
	floor, err := sdk.ParseDecCoins(DefaultMinGasPrices)
	require.NoError(t, err)
	for _, tc := range []struct {
		name     string
		gas      uint64
		balances sdk.Coins
		want     string
	}{
		{"holds both", feeCheckGas, sdk.NewCoins(sdk.NewInt64Coin("ugpu", 1_000_000), sdk.NewInt64Coin("uusdc", 1_000_000)), "ugpu"},
		{"holds only USDC: a bridged renter", feeCheckGas, sdk.NewCoins(sdk.NewInt64Coin("uusdc", 2_500)), "uusdc"},
		{"ugpu exactly the fee", feeCheckGas, sdk.NewCoins(sdk.NewInt64Coin("ugpu", 2_500), sdk.NewInt64Coin("uusdc", 9_999)), "ugpu"},
		{"ugpu one short", feeCheckGas, sdk.NewCoins(sdk.NewInt64Coin("ugpu", 2_499), sdk.NewInt64Coin("uusdc", 9_999)), "uusdc"},
		{"the fee rounds up", 200_001, sdk.NewCoins(sdk.NewInt64Coin("ugpu", 500), sdk.NewInt64Coin("uusdc", 501)), "uusdc"},
		{"a given gas, not the check's", 200_000, sdk.NewCoins(sdk.NewInt64Coin("ugpu", 500)), "ugpu"},
		{"neither is enough", feeCheckGas, sdk.NewCoins(sdk.NewInt64Coin("ugpu", 1), sdk.NewInt64Coin("uusdc", 1)), "ugpu"},
		{"holds nothing", feeCheckGas, nil, "ugpu"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := autoGasPrice(floor, tc.gas, func(denom string) sdkmath.Int { return tc.balances.AmountOf(denom) })
			require.Equal(t, "0.002500000000000000"+tc.want, got.String())
		})
	}
}
