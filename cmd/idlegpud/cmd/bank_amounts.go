package cmd

import (
	"strings"

	"github.com/spf13/cobra"
)

// humanBankAmounts makes the SDK's hand-written `tx bank send` and
// `tx bank multi-send` read their amounts as every other idlegpud command
// reads one (units.ParseCoin: "1.5usdc", "1.5 USDC" or "1500000uusdc"),
// instead of the SDK's base-units-only parser, which took "5gpu" as five of
// a denom "gpu" nobody holds. The amount, always the last argument, is
// rewritten in base units before the SDK's command runs; a comma separates
// coins as before.
func humanBankAmounts(root *cobra.Command) {
	for _, path := range [][]string{{"tx", "bank", "send"}, {"tx", "bank", "multi-send"}} {
		c, _, err := root.Find(path)
		if err != nil || c.Name() != path[len(path)-1] || c.RunE == nil {
			continue
		}
		run := c.RunE
		c.RunE = func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				amount, err := baseUnits(args[len(args)-1])
				if err != nil {
					return err
				}
				args = append(args[:len(args)-1:len(args)-1], amount)
			}
			return run(cmd, args)
		}
	}
}

// baseUnits reads a comma-separated list of amounts and writes it in base
// units, as the SDK's coin parser reads them; each amount is read as
// autocli's coin arguments are (parseCoin).
func baseUnits(s string) (string, error) {
	parts := strings.Split(s, ",")
	out := make([]string, 0, len(parts))
	for _, p := range parts {
		coin, err := parseCoin(strings.TrimSpace(p), false)
		if err != nil {
			return "", err
		}
		out = append(out, coin.String())
	}
	return strings.Join(out, ","), nil
}
