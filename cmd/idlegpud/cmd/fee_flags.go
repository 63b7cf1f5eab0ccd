package cmd

import (
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"github.com/cosmos/cosmos-sdk/client/flags"

	"github.com/idlegpu/idlegpu/x/client/precheck"
)

// checkFeeFlags refuses a malformed --fees or --gas-prices before any
// command runs. The SDK's tx factory parses them where it cannot return an
// error (Factory.WithFees and WithGasPrices panic), so `--fees 1000` ended
// every tx command in a stack trace. The values are read as the factory
// reads them: through v, so flags, then IDLEGPU_FEES and IDLEGPU_GAS_PRICES.
func checkFeeFlags(cmd *cobra.Command, v *viper.Viper) error {
	for _, f := range []struct {
		name  string
		parse func(string) error
	}{
		{flags.FlagFees, func(s string) error { _, err := precheck.Coins(s); return err }},
		{flags.FlagGasPrices, func(s string) error { _, err := precheck.DecCoins(s); return err }},
	} {
		if cmd.Flags().Lookup(f.name) == nil {
			continue // not a tx command
		}
		if err := v.BindPFlag(f.name, cmd.Flags().Lookup(f.name)); err != nil {
			return err
		}
		if s := v.GetString(f.name); s != "" {
			if err := f.parse(s); err != nil {
				return fmt.Errorf("--%s: %w", f.name, err)
			}
		}
	}
	return nil
}
