// Package cli holds the x/provider commands autocli cannot build: GPU
// registration from the agent's inventory file.
package cli

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/cosmos/cosmos-sdk/client"
	"github.com/cosmos/cosmos-sdk/client/flags"
	"github.com/cosmos/cosmos-sdk/client/tx"

	"github.com/idlegpu/idlegpu/x/client/precheck"
	"github.com/idlegpu/idlegpu/x/provider/types"
)

// FlagProvider names the provider an agent acts for.
const FlagProvider = "provider"

// NewTxCmd returns `tx provider`; autocli adds the other commands to it.
func NewTxCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:                        types.ModuleName,
		Short:                      "x/provider transactions: register, GPUs, stake",
		DisableFlagParsing:         true,
		SuggestionsMinimumDistance: 2,
		RunE:                       client.ValidateCmd,
	}
	cmd.AddCommand(RegisterGPUsCmd())
	return cmd
}

// RegisterGPUsCmd is `tx provider register-gpus <inventory.json>`.
func RegisterGPUsCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "register-gpus <inventory.json|->",
		Short: "Bind GPUs to a provider from an inventory file (what `idlegpu-agent inventory --json` prints)",
		Long: `Bind GPUs to a provider. The file (or - for standard input) is the agent's
inventory:

  {"gpus": [{"uuid": "GPU-5f1c6c2a-9b8e-4c3d-a1f0-0123456789ab",
             "model": "NVIDIA H100 80GB HBM3", "memory_mib": "81559",
             "pci_bus_id": "00000000:3B:00.0", "driver_version": "550.54.15",
             "vbios_version": "96.00.89.00.01"}]}

The signer (--from) is the provider's operator or one of its agents; an agent
names the provider with --provider. The chain computes each GPU's fingerprint.`,
		Example: `idlegpud tx provider register-gpus inventory.json --from operator
idlegpu-agent inventory --json | idlegpud tx provider register-gpus - --from agent --provider idle1...`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			clientCtx, err := client.GetClientTxContext(cmd)
			if err != nil {
				return err
			}
			bz, err := readInventory(cmd, args[0])
			if err != nil {
				return err
			}
			var msg types.MsgRegisterGPUs
			if err := clientCtx.Codec.UnmarshalJSON(bz, &msg); err != nil {
				return fmt.Errorf("reading inventory %s: %w", args[0], err)
			}
			if len(msg.Gpus) == 0 {
				return fmt.Errorf("inventory %s lists no GPUs", args[0])
			}
			// The address codec of a client context is the chain's global
			// bech32 config, which idlegpud sets to "idle" at start.
			signer := clientCtx.GetFromAddress().String()
			msg.Signer = signer
			if provider, _ := cmd.Flags().GetString(FlagProvider); provider != "" {
				msg.Provider = provider
			}
			if msg.Provider == "" {
				msg.Provider = signer
			}
			if err := msg.ValidateBasic(); err != nil {
				return err
			}
			if precheck.Online(clientCtx) {
				models := make([]string, len(msg.Gpus))
				for i, g := range msg.Gpus {
					models[i] = g.Model
				}
				if err := precheck.GPUModels(cmd.Context(), clientCtx, models); err != nil {
					return fmt.Errorf("inventory %s: %w", args[0], err)
				}
			}
			return tx.GenerateOrBroadcastTxCLI(clientCtx, cmd.Flags(), &msg)
		},
	}
	cmd.Flags().String(FlagProvider, "", "operator address of the provider (default: the signer)")
	flags.AddTxFlagsToCmd(cmd)
	return cmd
}

func readInventory(cmd *cobra.Command, path string) ([]byte, error) {
	if path == "-" {
		return io.ReadAll(cmd.InOrStdin())
	}
	return os.ReadFile(path)
}
