package cmd

import (
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/require"

	sdkmath "cosmossdk.io/math"

	"github.com/cosmos/cosmos-sdk/client"
	"github.com/cosmos/cosmos-sdk/client/flags"
	clienttx "github.com/cosmos/cosmos-sdk/client/tx"
	sdk "github.com/cosmos/cosmos-sdk/types"
)

// TestSetTxDefaults: what the SDK's tx factory reads after setTxDefaults,
// for what the user gave by flag or environment. Without --gas the tx is
// simulated with a 1.5 margin; without a fee it pays the floor in a denom
// the payer holds; anything given stays as given.
func TestSetTxDefaults(t *testing.T) {
	const floorGPU, floorUSDC = "0.002500000000000000ugpu", "0.002500000000000000uusdc"
	rich := sdk.NewCoins(sdk.NewInt64Coin("ugpu", 1_000_000), sdk.NewInt64Coin("uusdc", 1_000_000))
	bridged := sdk.NewCoins(sdk.NewInt64Coin("uusdc", 1_000_000))
	for _, tc := range []struct {
		name     string
		args     []string
		env      map[string]string
		balances sdk.Coins
		// what the factory reads
		simulate  bool
		gas       uint64
		gasAdj    float64
		fees      string
		gasPrices string
		asked     bool // whether the payer's balance was read
	}{
		{name: "nothing given", balances: rich, simulate: true, gasAdj: 1.5, gasPrices: floorGPU, asked: true},
		{name: "nothing given, a bridged renter", balances: bridged, simulate: true, gasAdj: 1.5, gasPrices: floorUSDC, asked: true},
		{name: "nothing given, nothing held", simulate: true, gasAdj: 1.5, gasPrices: floorGPU, asked: true},
		{name: "--fees", args: []string{"--fees", "700ugpu"}, balances: bridged, simulate: true, gasAdj: 1.5, fees: "700ugpu"},
		{name: "--gas-prices", args: []string{"--gas-prices", "0.01uusdc"}, balances: rich, simulate: true, gasAdj: 1.5, gasPrices: "0.010000000000000000uusdc"},
		{name: "IDLEGPU_FEES", env: map[string]string{"IDLEGPU_FEES": "900uusdc"}, balances: rich, simulate: true, gasAdj: 1.5, fees: "900uusdc"},
		{name: "IDLEGPU_GAS_PRICES", env: map[string]string{"IDLEGPU_GAS_PRICES": "0.5ugpu"}, simulate: true, gasAdj: 1.5, gasPrices: "0.500000000000000000ugpu"},
		{name: "--gas", args: []string{"--gas", "300000"}, balances: rich, gas: 300_000, gasAdj: 1, gasPrices: floorGPU, asked: true},
		// The denom is chosen for the gas given: 300,000 gas costs 750 at the floor.
		{name: "--gas, the fee token one short", args: []string{"--gas", "300000"}, balances: sdk.NewCoins(sdk.NewInt64Coin("ugpu", 749), sdk.NewInt64Coin("uusdc", 750)),
			gas: 300_000, gasAdj: 1, gasPrices: floorUSDC, asked: true},
		{name: "--gas auto", args: []string{"--gas", "auto"}, balances: rich, simulate: true, gasAdj: 1.5, gasPrices: floorGPU, asked: true},
		{name: "--gas-adjustment", args: []string{"--gas-adjustment", "2"}, balances: rich, simulate: true, gasAdj: 2, gasPrices: floorGPU, asked: true},
		{name: "IDLEGPU_GAS", env: map[string]string{"IDLEGPU_GAS": "123456"}, balances: rich, gas: 123_456, gasAdj: 1, gasPrices: floorGPU, asked: true},
		{name: "everything given", args: []string{"--gas", "250000", "--gas-adjustment", "3", "--fees", "1000ugpu"}, gas: 250_000, gasAdj: 3, fees: "1000ugpu"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			cmd := &cobra.Command{Use: "x"}
			flags.AddTxFlagsToCmd(cmd)
			require.NoError(t, cmd.ParseFlags(tc.args))
			clientCtx := client.Context{}.WithViper(EnvPrefix)
			asked := false
			spendable := func(denom string) sdkmath.Int {
				asked = true
				return tc.balances.AmountOf(denom)
			}

			require.NoError(t, setTxDefaults(clientCtx.Viper, cmd.Flags(), spendable))

			f, err := clienttx.NewFactoryCLI(clientCtx, cmd.Flags())
			require.NoError(t, err)
			require.Equal(t, tc.simulate, f.SimulateAndExecute(), "simulate")
			require.Equal(t, tc.gas, f.Gas(), "gas")
			require.Equal(t, tc.gasAdj, f.GasAdjustment(), "gas adjustment")
			require.Equal(t, tc.fees, f.Fees().String(), "fees")
			require.Equal(t, tc.gasPrices, f.GasPrices().String(), "gas prices")
			require.Equal(t, tc.asked, asked, "balance read")
		})
	}
}
