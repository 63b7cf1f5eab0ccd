package cmd

import (
	"fmt"
	"path/filepath"

	cmtcfg "github.com/cometbft/cometbft/config"
	"github.com/spf13/cobra"

	"github.com/cosmos/cosmos-sdk/server"
	"github.com/cosmos/cosmos-sdk/types/module"
	genutilcli "github.com/cosmos/cosmos-sdk/x/genutil/client/cli"

	"github.com/idlegpu/idlegpu/app"
)

const flagTimeoutCommit = "timeout-commit"

// initCmd wraps the SDK's init so config.toml gets our timeout_commit. The
// SDK replaces CometBFT's default (1s) with 5s when it first writes the file,
// and does so whenever the value equals the default, so the only way to
// write 1s is to set it after the file exists.
func initCmd(basics module.BasicManager) *cobra.Command {
	cmd := genutilcli.InitCmd(basics, app.DefaultNodeHome)
	run := cmd.RunE
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if err := run(cmd, args); err != nil {
			return err
		}
		timeout, err := cmd.Flags().GetDuration(flagTimeoutCommit)
		if err != nil {
			return err
		}
		if timeout <= 0 {
			return fmt.Errorf("--%s must be positive, got %s", flagTimeoutCommit, timeout)
		}
		cfg := server.GetServerContextFromCmd(cmd).Config
		cfg.Consensus.TimeoutCommit = timeout
		cmtcfg.WriteConfigFile(filepath.Join(cfg.RootDir, "config", "config.toml"), cfg)
		return nil
	}
	cmd.Flags().Duration(flagTimeoutCommit, DefaultTimeoutCommit, "pause after each committed block written to config.toml (public networks may want 5s)")
	return cmd
}
