package bridge

import (
	"fmt"
	"log/slog"

	"github.com/spf13/cobra"
)

const (
	flagLogLevel  = "log-level"
	flagLogFormat = "log-format"
)

// NewRootCmd is idlegpu-bridge's command tree; each subcommand lives in its
// own file. cmd/idlegpu-bridge only runs it.
func NewRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:           "idlegpu-bridge",
		Short:         "Bridge between the idlegpu chain and its EVM settlement vault",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.PersistentFlags().String(flagLogLevel, "info", "debug, info, warn or error")
	root.PersistentFlags().String(flagLogFormat, "text", "text or json")
	root.AddCommand(registerCmd(), orchestrateCmd(), relayCmd(), claimCmd(), deployVaultCmd())
	return root
}

// logger builds the slog logger the flags ask for, writing to stderr so
// stdout carries only a command's result.
func logger(cmd *cobra.Command) (*slog.Logger, error) {
	format, _ := cmd.Flags().GetString(flagLogFormat)
	lvl, _ := cmd.Flags().GetString(flagLogLevel)
	var level slog.Level
	if err := level.UnmarshalText([]byte(lvl)); err != nil {
		return nil, fmt.Errorf("--%s: %w", flagLogLevel, err)
	}
	opts := &slog.HandlerOptions{Level: level}
	switch format {
	case "text":
		return slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(cmd.ErrOrStderr(), opts)), nil
	}
	return nil, fmt.Errorf("--%s must be text or json, got %q", flagLogFormat, format)
}
