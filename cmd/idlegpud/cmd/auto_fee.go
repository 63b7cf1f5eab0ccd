package cmd

import (
	sdkmath "cosmossdk.io/math"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/base/chaincfg"
)

// feeCheckGas is the gas a payer's balance must pay for, at the floor, for
// autoGasPrice to choose a denom while the gas is still to be simulated:
// 1M gas (2,500 base units), a margin above a market tx's gas, so the
// denom chosen before the simulation still pays after it.
const feeCheckGas = 1_000_000

// autoGasPrice is the gas price a tx pays when its sender names no fee
// (neither --fees nor --gas-prices, by flag, environment or client.toml):
// the node's default floor, in one denom, since a price in each denom
// would charge the fee once in each. The floor takes a fee in any one of
// its denoms, and renters who came through the EVM bridge hold uusdc and
// no ugpu, so the rule is: the chain's fee token where the payer can pay
// gas of it at the floor, else the first other denom it can pay in, else
// the fee token, so that the chain's "insufficient funds" names the token
// a payer should get. spendable is the payer's spendable balance of a denom.
func autoGasPrice(floor sdk.DecCoins, gas uint64, spendable func(denom string) sdkmath.Int) sdk.DecCoin {
	ordered := make(sdk.DecCoins, 0, len(floor))
	for _, p := range floor {
		if p.Denom == chaincfg.BondDenom {
			ordered = append(sdk.DecCoins{p}, ordered...)
		} else {
			ordered = append(ordered, p)
		}
	}
	gasDec := sdkmath.LegacyNewDecFromInt(sdkmath.NewIntFromUint64(gas))
	for _, p := range ordered {
		fee := p.Amount.Mul(gasDec).Ceil().TruncateInt() // as the node computes it
		if spendable(p.Denom).GTE(fee) {
			return p
		}
	}
	return ordered[0]
}
