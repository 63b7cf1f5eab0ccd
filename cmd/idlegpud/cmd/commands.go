package cmd

import (
	dbm "github.com/cosmos/cosmos-db"
	"github.com/spf13/cobra"

	"cosmossdk.io/log/v2"

	"github.com/cosmos/cosmos-sdk/client"
	"github.com/cosmos/cosmos-sdk/client/debug"
	"github.com/cosmos/cosmos-sdk/client/keys"
	"github.com/cosmos/cosmos-sdk/client/pruning"
	"github.com/cosmos/cosmos-sdk/client/rpc"
	"github.com/cosmos/cosmos-sdk/client/snapshot"
	"github.com/cosmos/cosmos-sdk/server"
	servertypes "github.com/cosmos/cosmos-sdk/server/types"
	"github.com/cosmos/cosmos-sdk/types/module"
	authcmd "github.com/cosmos/cosmos-sdk/x/auth/client/cli"
	genutilcli "github.com/cosmos/cosmos-sdk/x/genutil/client/cli"

	"github.com/idlegpu/idlegpu/app"
	settlementcli "github.com/idlegpu/idlegpu/x/settlement/client/cli"
)

// initRootCmd adds the node, keyring, genesis and client commands.
func initRootCmd(rootCmd *cobra.Command, txConfig client.TxConfig, basics module.BasicManager) {
	rootCmd.AddCommand(
		initCmd(basics),
		debug.Cmd(),
		pruning.Cmd(newApp, app.DefaultNodeHome),
		snapshot.Cmd(newApp),
	)

	// start, comet, export, version, rollback.
	server.AddCommands(rootCmd, app.DefaultNodeHome, newApp, appExport, func(*cobra.Command) {})

	genesisCmd := genutilcli.Commands(txConfig, basics, app.DefaultNodeHome)
	genesisCmd.AddCommand(developmentGenesisCmd(app.DefaultNodeHome), gpuPassGenesisCmd(app.DefaultNodeHome))
	genesisCmd.Annotations = map[string]string{offlineTxAnnotation: "true"}
	rootCmd.AddCommand(
		server.StatusCommand(),
		genesisCmd,
		queryCommand(),
		txCommand(),
		keys.Commands(),
		settlementcli.AuditCmd(),
		leaseCommand(),
	)
}

// queryCommand is `idlegpud query`; autocli adds a sub-command per module.
func queryCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:                        "query",
		Aliases:                    []string{"q"},
		Short:                      "Query the chain",
		DisableFlagParsing:         false,
		SuggestionsMinimumDistance: 2,
		RunE:                       client.ValidateCmd,
	}
	cmd.AddCommand(
		rpc.QueryEventForTxCmd(),
		rpc.ValidatorCommand(),
		server.QueryBlockCmd(),
		authcmd.QueryTxsByEventsCmd(),
		server.QueryBlocksCmd(),
		authcmd.QueryTxCmd(),
		server.QueryBlockResultsCmd(),
	)
	return cmd
}

// txCommand is `idlegpud tx`; autocli adds a sub-command per module.
func txCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:                        "tx",
		Short:                      "Sign and broadcast transactions",
		DisableFlagParsing:         false,
		SuggestionsMinimumDistance: 2,
		RunE:                       client.ValidateCmd,
	}
	cmd.AddCommand(
		authcmd.GetSignCommand(),
		authcmd.GetSignBatchCommand(),
		authcmd.GetMultiSignCommand(),
		authcmd.GetMultiSignBatchCmd(),
		authcmd.GetValidateSignaturesCommand(),
		authcmd.GetBroadcastCommand(),
		authcmd.GetEncodeCommand(),
		authcmd.GetDecodeCommand(),
		authcmd.GetSimulateCmd(),
	)
	for _, c := range cmd.Commands() { // autocli adds the modules' commands later
		if c.Annotations == nil {
			c.Annotations = map[string]string{}
		}
		c.Annotations[builtTxAnnotation] = "true"
	}
	return cmd
}

// newApp builds the application for `start` and the other node commands.
func newApp(logger log.Logger, db dbm.DB, appOpts servertypes.AppOptions) servertypes.Application {
	baseappOptions := server.DefaultBaseappOptions(appOpts)
	return app.New(logger, db, true, appOpts, baseappOptions...)
}

// appExport implements `idlegpud export`.
func appExport(
	logger log.Logger,
	db dbm.DB,
	height int64,
	forZeroHeight bool,
	jailAllowedAddrs []string,
	appOpts servertypes.AppOptions,
	modulesToExport []string,
) (servertypes.ExportedApp, error) {
	exportApp := app.New(logger, db, height == -1, appOpts)
	if height != -1 {
		if err := exportApp.LoadHeight(height); err != nil {
			return servertypes.ExportedApp{}, err
		}
	}
	return exportApp.ExportAppStateAndValidators(forZeroHeight, jailAllowedAddrs, modulesToExport)
}
