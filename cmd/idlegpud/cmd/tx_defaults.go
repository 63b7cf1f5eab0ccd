package cmd

import (
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"

	sdkmath "cosmossdk.io/math"

	"github.com/cosmos/cosmos-sdk/client"
	"github.com/cosmos/cosmos-sdk/client/flags"
	sdk "github.com/cosmos/cosmos-sdk/types"
	banktypes "github.com/cosmos/cosmos-sdk/x/bank/types"
)

// defaultGasAdjustment raises simulated gas when the user sets no
// --gas-adjustment: a tx meets other state in its block than in the
// simulation (another tx first, a new account), and one that runs out of
// gas pays its fee for nothing. The SDK's default is 1, no margin at all.
const defaultGasAdjustment = 1.5

// defaultFloor is DefaultMinGasPrices parsed.
var defaultFloor = func() sdk.DecCoins {
	floor, err := sdk.ParseDecCoins(DefaultMinGasPrices)
	if err != nil || floor.Empty() {
		panic("DefaultMinGasPrices: " + DefaultMinGasPrices)
	}
	return floor
}()

// signerArgs are the commands that take their signer as an argument (the
// SDK's bank commands), by path and position: they set --from from it only
// inside their own RunE, after the fee is chosen.
var signerArgs = map[string]int{
	"tx bank send":       0,
	"tx bank multi-send": 0,
}

// setTxDefaults fills in, where the tx factory reads them (v), the gas and
// fee a tx command's user left out, so a command written without them is
// accepted. Without --gas the tx is simulated: its gas fits it where the
// SDK's fixed 200,000 could run out in the block, and a tx whose messages
// fail fails in the simulation, before any fee is paid. Without --fees or
// --gas-prices it pays the node's default floor (autoGasPrice), where it
// paid nothing and the node refused it with code 13. Whatever the user set,
// by flag, IDLEGPU_* environment or client.toml, stays. spendable is the
// fee payer's spendable balance of a denom.
func setTxDefaults(v *viper.Viper, fs *pflag.FlagSet, spendable func(denom string) sdkmath.Int) error {
	if err := v.BindPFlags(fs); err != nil {
		return err
	}
	if !v.IsSet(flags.FlagGas) {
		v.Set(flags.FlagGas, flags.GasFlagAuto)
	}
	gas, err := flags.ParseGasSetting(v.GetString(flags.FlagGas))
	if err != nil {
		return nil // the factory reads it the same way and says so
	}
	if gas.Simulate && !v.IsSet(flags.FlagGasAdjustment) {
		v.Set(flags.FlagGasAdjustment, defaultGasAdjustment)
	}
	if v.IsSet(flags.FlagFees) || v.IsSet(flags.FlagGasPrices) {
		return nil
	}
	checkGas := gas.Gas
	if gas.Simulate {
		checkGas = feeCheckGas
	}
	v.Set(flags.FlagGasPrices, autoGasPrice(defaultFloor, checkGas, spendable).String())
	return nil
}

// payerBalances reads the spendable balances of the account the fee comes
// from: --fee-granter's, else --fee-payer's, else the signer's. A balance
// that cannot be read (no signer yet, no node) reads as zero, and the
// command then says what is wrong when it builds the tx.
func payerBalances(cmd *cobra.Command, args []string, clientCtx client.Context) func(denom string) sdkmath.Int {
	payer := clientCtx.FeeGranter
	if payer.Empty() {
		payer = clientCtx.FeePayer
	}
	if payer.Empty() {
		payer = clientCtx.FromAddress
	}
	path := strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()+" ")
	if i, ok := signerArgs[path]; ok && payer.Empty() && i < len(args) {
		payer, _, _, _ = client.GetFromFields(clientCtx, clientCtx.Keyring, args[i])
	}
	return func(denom string) sdkmath.Int {
		if payer.Empty() {
			return sdkmath.ZeroInt()
		}
		res, err := banktypes.NewQueryClient(clientCtx).SpendableBalanceByDenom(clientCtx.GetCmdContextWithFallback(),
			&banktypes.QuerySpendableBalanceByDenomRequest{Address: payer.String(), Denom: denom})
		if err != nil || res.Balance == nil {
			return sdkmath.ZeroInt()
		}
		return res.Balance.Amount
	}
}
