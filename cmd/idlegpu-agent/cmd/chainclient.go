package cmd

import (
	"bufio"
	"fmt"
	"log/slog"

	"github.com/spf13/cobra"

	"github.com/idlegpu/idlegpu/agent/config"
	"github.com/idlegpu/idlegpu/chainclient"
)

// newChainClient opens the keyring and the node the configuration names.
// A "file" keyring's passphrase comes from keyringInput.
func newChainClient(cmd *cobra.Command, c config.Config, log *slog.Logger) (*chainclient.Client, error) {
	src, err := keyringInput(cmd, c.Key, bufio.NewReader(cmd.InOrStdin()))
	if err != nil {
		return nil, err
	}
	cl, err := chainclient.New(chainclient.Config{
		RPC: c.Chain.RPC, Fallbacks: c.Chain.RPCFallbacks, ChainID: c.Chain.ChainID, GasPrices: c.Chain.GasPrices,
		KeyringDir: c.Key.KeyringDir, KeyringBackend: c.Key.KeyringBackend, KeyName: c.Key.Name,
		KeyringInput: src.input, Logger: log,
	})
	if err != nil {
		return nil, fmt.Errorf("chain client: %w", src.unlockError(err, c.Key.KeyringDir))
	}
	return cl, nil
}

// providerAddress is the provider the agent acts for: key.provider, or the
// agent key itself when that is empty (the operator runs its own agent).
func providerAddress(c config.Config, cl *chainclient.Client) string {
	if c.Key.Provider != "" {
		return c.Key.Provider
	}
	return cl.Address().String()
}

// connect builds the flags' logger and the chain client of a command.
func connect(cmd *cobra.Command, c config.Config) (*chainclient.Client, *slog.Logger, error) {
	log, err := logger(cmd)
	if err != nil {
		return nil, nil, err
	}
	cl, err := newChainClient(cmd, c, log)
	return cl, log, err
}
