// Package cmd holds the idlegpu-agent commands; the work is in agent/.
package cmd

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/idlegpu/idlegpu/agent/config"
)

const (
	flagHome      = "home"
	flagLogFormat = "log-format"
	flagLogLevel  = "log-level"
)

// Version is the agent's version, named in every proof (set with -ldflags).
var Version = "dev"

// NewRootCmd is `idlegpu-agent`.
func NewRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:           "idlegpu-agent",
		Short:         "The idlegpu provider agent: rent out your GPUs' idle hours",
		Version:       Version,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	home, _ := os.UserHomeDir()
	root.PersistentFlags().String(flagHome, filepath.Join(home, ".idlegpu-agent"), "agent home: config, keyring, state")
	root.PersistentFlags().String(flagLogFormat, "text", "log format: text or json")
	root.PersistentFlags().String(flagLogLevel, "info", "log level: debug, info, warn, error")
	root.PersistentFlags().String(flagPassphraseFile, "", "file keyring: a file whose first line is the passphrase (default: key.passphrase_file, then "+envKeyringPassphrase+", then the terminal or stdin's first line)")
	root.AddCommand(initCmd(), inventoryCmd(), runCmd(), registerCmd(), statusCmd(), doctorCmd(),
		pauseCmd(), resumeCmd(), drainCmd(), leaveCmd())
	return root
}

// configPath is where the agent's configuration lives in its home.
func configPath(cmd *cobra.Command) string {
	home, _ := cmd.Flags().GetString(flagHome)
	return filepath.Join(home, "agent.toml")
}

// loadConfig reads the home's configuration.
func loadConfig(cmd *cobra.Command) (config.Config, error) {
	c, err := config.Load(configPath(cmd))
	if os.IsNotExist(err) {
		return c, fmt.Errorf("no configuration at %s: run `idlegpu-agent init` first", configPath(cmd))
	}
	return c, err
}

// logger is the structured logger the flags ask for, on stderr.
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
