// Package cli holds the x/bridge command autocli cannot build: a withdrawal
// whose recipient is an EVM address, which the CLI must not read as an
// appchain account.
package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/cosmos/cosmos-sdk/client"
	"github.com/cosmos/cosmos-sdk/client/flags"
	"github.com/cosmos/cosmos-sdk/client/tx"

	"github.com/idlegpu/idlegpu/x/bridge/types"
	"github.com/idlegpu/idlegpu/x/client/precheck"
)

// EVMArgsAnnotation marks a command whose 0x arguments are EVM-side
// addresses: the CLI's root leaves them as they are instead of turning
// them into the appchain account with the same bytes.
const EVMArgsAnnotation = "idlegpu.evm-args"

// NewTxCmd returns `tx bridge`; autocli adds the other commands to it.
func NewTxCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:                        types.ModuleName,
		Short:                      "x/bridge transactions: withdraw to the EVM side, orchestrator duties",
		DisableFlagParsing:         true,
		SuggestionsMinimumDistance: 2,
		RunE:                       client.ValidateCmd,
	}
	cmd.AddCommand(WithdrawToEvmCmd())
	return cmd
}

// WithdrawToEvmCmd is `tx bridge withdraw-to-evm <0x recipient> <amount>`.
func WithdrawToEvmCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "withdraw-to-evm <0x-recipient> <amount>",
		Short: "Burn bridged coins and pay them to an EVM address through the next payout root",
		Long: `Burns <amount> of the bridged denom from --from and adds it to <0x-recipient>'s
cumulative payout on the EVM side. The next payout root (every payout_epoch_blocks)
includes it; once validators sign it and a relayer carries it to the vault, anyone
can claim it for the recipient (idlegpu-bridge claim <0x-recipient>).`,
		Example:     `idlegpud tx bridge withdraw-to-evm 0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed 25000000uusdc --from provider`,
		Args:        cobra.ExactArgs(2),
		Annotations: map[string]string{EVMArgsAnnotation: "true"},
		RunE: func(cmd *cobra.Command, args []string) error {
			clientCtx, err := client.GetClientTxContext(cmd)
			if err != nil {
				return err
			}
			recipient, err := types.ParseEvmAddress(args[0])
			if err != nil {
				return err
			}
			amount, err := precheck.Coin(args[1])
			if err != nil {
				return fmt.Errorf("amount: %w", err)
			}
			msg := &types.MsgWithdrawToEvm{Sender: clientCtx.GetFromAddress().String(), EvmRecipient: recipient.Hex(), Amount: amount}
			return tx.GenerateOrBroadcastTxCLI(clientCtx, cmd.Flags(), msg)
		},
	}
	flags.AddTxFlagsToCmd(cmd)
	return cmd
}
