// Package cli holds the x/bridge command autocli cannot build: a withdrawal
// whose recipient is an EVM address, which the CLI must not read as an
// appchain account.
package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/cosmos/cosmos-sdk/client"
	"github.com/cosmos/cosmos-sdk/client/flags"
	"github.com/cosmos/cosmos-sdk/client/tx"
	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/auction/client/units"
	"github.com/idlegpu/idlegpu/x/base/chaincfg"
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
can claim it for the recipient (idlegpu-bridge claim <0x-recipient>). An amount in
another denom or below the chain's min_withdrawal is refused before anything is signed.`,
		Example:     `idlegpud tx bridge withdraw-to-evm 0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed 25usdc --from provider`,
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
			// Read like every amount: "250usdc", "250 USDC" or "250000000uusdc".
			metas, err := precheck.DenomMetadata(cmd.Context(), clientCtx)
			if err != nil {
				return err
			}
			amount, err := units.ParseCoin(args[1], metas, chaincfg.USDCDenom)
			if err != nil {
				return fmt.Errorf("amount: %w", err)
			}
			if precheck.Online(clientCtx) {
				display := chainDisplay(cmd.Context(), clientCtx)
				if err := precheck.Withdrawal(cmd.Context(), clientCtx, amount, display); err != nil {
					return fmt.Errorf("amount: %w", err)
				}
			}
			msg := &types.MsgWithdrawToEvm{Sender: clientCtx.GetFromAddress().String(), EvmRecipient: recipient.Hex(), Amount: amount}
			return tx.GenerateOrBroadcastTxCLI(clientCtx, cmd.Flags(), msg)
		},
	}
	flags.AddTxFlagsToCmd(cmd)
	return cmd
}

// chainDisplay writes coins in their display unit from the chain's denom
// metadata ("0.999999 USDC"), read once and only when an amount is written;
// a denom without metadata, or a node that does not answer, leaves base units.
func chainDisplay(ctx context.Context, clientCtx client.Context) func(sdk.Coin) string {
	var u *units.Units
	return func(c sdk.Coin) string {
		if u == nil {
			metas, _ := precheck.DenomMetadata(ctx, clientCtx)
			u = units.NewUnits(metas)
		}
		return u.Coin(c)
	}
}
