package cmd

import (
	"github.com/spf13/cobra"

	"github.com/cosmos/cosmos-sdk/client"
	"github.com/cosmos/cosmos-sdk/client/flags"
)

// builtTxAnnotation marks the commands that sign, send or read a tx built
// before them (tx sign, tx broadcast, …): its gas and fee are set, so the
// CLI adds none.
const builtTxAnnotation = "idlegpu.built-tx"

// offlineTxAnnotation marks a tree of commands that build txs without a
// node whatever their tx flags say (genesis gentx writes a genesis tx):
// nothing to simulate, no balance to read, no block to wait for.
const offlineTxAnnotation = "idlegpu.offline-tx"

// wrapTxCommands makes every command in c's tree that can broadcast a tx
// (it has --broadcast-mode) fill in the gas and fee its user left out
// (setTxDefaults) and, in sync mode, end as its tx ends in the chain
// (txWait). A tx built without a node (--generate-only, --offline, the
// genesis commands), a dry run, an aux signature and async mode are left
// as the SDK does them.
func wrapTxCommands(c *cobra.Command) {
	if c.Annotations[offlineTxAnnotation] != "" {
		return
	}
	for _, sub := range c.Commands() {
		wrapTxCommands(sub)
	}
	if c.RunE == nil || c.Flags().Lookup(flags.FlagBroadcastMode) == nil {
		return
	}
	addWaitFlags(c)
	run := c.RunE
	c.RunE = func(cmd *cobra.Command, args []string) error {
		wait, err := prepareTx(cmd, args)
		if err != nil {
			return err
		}
		if err := run(cmd, args); err != nil {
			return err
		}
		if wait != nil {
			return wait.failure
		}
		return nil
	}
}

// prepareTx sets cmd's gas and fee defaults and, in sync mode, its
// txWait, which it returns.
func prepareTx(cmd *cobra.Command, args []string) (*txWait, error) {
	clientCtx, err := client.GetClientTxContext(cmd)
	if err != nil || clientCtx.GenerateOnly || clientCtx.Offline || clientCtx.Simulate || clientCtx.IsAux {
		return nil, nil // the command says what is wrong with its context, or sends nothing
	}
	if cmd.Annotations[builtTxAnnotation] == "" && clientCtx.Viper != nil {
		if err := setTxDefaults(clientCtx.Viper, cmd.Flags(), payerBalances(cmd, args, clientCtx)); err != nil {
			return nil, err
		}
	}
	if clientCtx.BroadcastMode != flags.BroadcastSync {
		return nil, nil
	}
	wait, err := newTxWait(cmd, clientCtx)
	if err != nil {
		return nil, err
	}
	// Autocli's commands print to the command's output, the others to their
	// client context's.
	out := &txResultOutput{w: cmd.OutOrStdout(), cdc: clientCtx.Codec, yaml: clientCtx.OutputFormat == flags.OutputFormatText, wait: wait}
	cmd.SetOut(out)
	stored := client.GetClientContextFromCmd(cmd)
	stored.Output = out
	return wait, client.SetCmdClientContext(cmd, stored)
}
