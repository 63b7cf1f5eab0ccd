// Package cmd builds the idlegpud command tree: the node (init, start,
// export, rollback, comet), the keyring, genesis tools, and the query and tx
// commands autocli derives from every module's gRPC services.
package cmd

import (
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"cosmossdk.io/client/v2/autocli"
	"cosmossdk.io/depinject"
	"cosmossdk.io/log/v2"

	"github.com/cosmos/cosmos-sdk/client"
	"github.com/cosmos/cosmos-sdk/client/config"
	"github.com/cosmos/cosmos-sdk/client/flags"
	"github.com/cosmos/cosmos-sdk/codec"
	codectypes "github.com/cosmos/cosmos-sdk/codec/types"
	"github.com/cosmos/cosmos-sdk/server"
	"github.com/cosmos/cosmos-sdk/types/module"
	"github.com/cosmos/cosmos-sdk/x/auth/tx"
	authtxconfig "github.com/cosmos/cosmos-sdk/x/auth/tx/config"
	authtypes "github.com/cosmos/cosmos-sdk/x/auth/types"

	"github.com/idlegpu/idlegpu/app"
	"github.com/idlegpu/idlegpu/x/base/chaincfg"
)

// NewRootCmd returns the idlegpud root command.
func NewRootCmd() *cobra.Command {
	var (
		autoCliOpts  autocli.AppOptions
		basicManager module.BasicManager
		clientCtx    client.Context
	)
	if err := depinject.Inject(
		depinject.Configs(
			app.AppConfig(),
			depinject.Supply(log.NewNopLogger()),
			depinject.Provide(ProvideClientContext),
		),
		&autoCliOpts,
		&basicManager,
		&clientCtx,
	); err != nil {
		panic(err)
	}

	rootCmd := &cobra.Command{
		Use:           "idlegpud",
		Short:         "idlegpu chain node: the GPU-rental market's validator and client",
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			if err := accountArgs(cmd, args); err != nil {
				return err
			}
			cmd.SetOut(cmd.OutOrStdout())
			cmd.SetErr(cmd.ErrOrStderr())

			// Print through cobra's writer so callers (and tests) that set
			// the command's output see what clients print.
			ctx := clientCtx.WithCmdContext(cmd.Context()).WithViper(chaincfg.Name).WithOutput(cmd.OutOrStdout())
			ctx, err := client.ReadPersistentCommandFlags(ctx, cmd.Flags())
			if err != nil {
				return err
			}
			if err := checkFeeFlags(cmd, ctx.Viper); err != nil {
				return err
			}
			ctx, err = config.ReadFromClientConfig(ctx)
			if err != nil {
				return err
			}
			if ctx, err = keyringInDirFlag(ctx, cmd.Flags()); err != nil {
				return err
			}
			if ctx, err = keyringPassphraseFile(ctx, cmd.Flags()); err != nil {
				return err
			}
			if err := client.SetCmdClientContextHandler(ctx, cmd); err != nil {
				return err
			}
			appTemplate, appConfig := initAppConfig()
			return server.InterceptConfigsPreRunHandler(cmd, appTemplate, appConfig, initCometBFTConfig())
		},
	}

	initRootCmd(rootCmd, clientCtx.TxConfig, app.GenesisBasics(basicManager))
	addKeyringPassphraseFlag(rootCmd)

	autoCliOpts.AddressCodec = evmOrBech32{autoCliOpts.AddressCodec}
	if err := enhanceRootCommand(rootCmd, autoCliOpts); err != nil {
		panic(err)
	}
	markEVMSide(rootCmd)
	addStateChecks(rootCmd)
	humanBankAmounts(rootCmd)
	wrapTxCommands(rootCmd)
	return rootCmd
}

// ProvideClientContext builds the client context the CLI starts from, with a
// tx config that can render coin metadata for SIGN_MODE_TEXTUAL over gRPC
// and reads JSON txs only where every number is plain decimal.
func ProvideClientContext(
	appCodec codec.Codec,
	interfaceRegistry codectypes.InterfaceRegistry,
	txConfigOpts tx.ConfigOptions,
	legacyAmino *codec.LegacyAmino,
) client.Context {
	clientCtx := client.Context{}.
		WithCodec(appCodec).
		WithInterfaceRegistry(interfaceRegistry).
		WithLegacyAmino(legacyAmino).
		WithInput(os.Stdin).
		WithAccountRetriever(authtypes.AccountRetriever{}).
		WithHomeDir(app.DefaultNodeHome).
		WithViper(chaincfg.Name)

	// Read client.toml now so the defaults below see its values.
	clientCtx, _ = config.ReadFromClientConfig(clientCtx)

	txConfigOpts.TextualCoinMetadataQueryFn = authtxconfig.NewGRPCCoinMetadataQueryFn(clientCtx)
	txConfig, err := tx.NewTxConfigWithOptions(clientCtx.Codec, txConfigOpts)
	if err != nil {
		panic(err)
	}
	return clientCtx.WithTxConfig(withCanonicalJSON(txConfig))
}

// keyringInDirFlag opens the keyring in --keyring-dir when the flag is
// given. ReadFromClientConfig opens client.toml's backend in --home, and
// ReadPersistentCommandFlags, which the commands call, reopens the keyring
// only when --keyring-backend itself is given: without this, --keyring-dir
// alone set the directory the context names but not the keyring it uses.
func keyringInDirFlag(ctx client.Context, fs *pflag.FlagSet) (client.Context, error) {
	if !fs.Changed(flags.FlagKeyringDir) {
		return ctx, nil
	}
	dir, err := fs.GetString(flags.FlagKeyringDir)
	if err != nil || dir == "" { // empty: the home directory, as already opened
		return ctx, err
	}
	backend, err := fs.GetString(flags.FlagKeyringBackend)
	if err != nil {
		return ctx, err
	}
	if !fs.Changed(flags.FlagKeyringBackend) && ctx.Keyring != nil {
		backend = ctx.Keyring.Backend() // client.toml's
	}
	ctx = ctx.WithKeyringDir(dir)
	kr, err := client.NewKeyringFromBackend(ctx, backend)
	if err != nil {
		return ctx, err
	}
	return ctx.WithKeyring(kr), nil
}
