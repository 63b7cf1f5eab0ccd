package cli

import (
	"crypto/ecdsa"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/idlegpu/idlegpu/x/auction/client/wallet"
)

// AddEthKeyFlags adds --eth-key and --passphrase-file: an Ethereum key
// signs for the renter instead of a Cosmos key. what says whose key it is.
func AddEthKeyFlags(cmd *cobra.Command, what string) {
	f := cmd.Flags()
	f.String(flagEthKey, "", what+": a go-ethereum keystore JSON file or a file holding the key in hex")
	f.String(flagPassphraseFile, "", "file holding the keystore passphrase (else $"+EnvEthPassphrase+", else a prompt)")
}

// EthKey loads the key --eth-key names, or returns nil if it names none.
func EthKey(cmd *cobra.Command) (*ecdsa.PrivateKey, error) {
	path, _ := cmd.Flags().GetString(flagEthKey)
	if path == "" {
		return nil, nil
	}
	return wallet.LoadKey(path, func() (string, error) { return passphrase(cmd) })
}

// passphrase reads the keystore passphrase from --passphrase-file, the
// environment, or a prompt on a terminal.
func passphrase(cmd *cobra.Command) (string, error) {
	if path, _ := cmd.Flags().GetString(flagPassphraseFile); path != "" {
		b, err := os.ReadFile(path)
		if err != nil {
			return "", fmt.Errorf("reading the passphrase: %w", err)
		}
		return strings.TrimRight(string(b), "\r\n"), nil
	}
	if p, ok := os.LookupEnv(EnvEthPassphrase); ok {
		return p, nil
	}
	if !term.IsTerminal(int(os.Stdin.Fd())) {
		return "", fmt.Errorf("the keystore needs a passphrase: --%s or $%s", flagPassphraseFile, EnvEthPassphrase)
	}
	fmt.Fprint(cmd.ErrOrStderr(), "Keystore passphrase: ")
	b, err := term.ReadPassword(int(os.Stdin.Fd()))
	fmt.Fprintln(cmd.ErrOrStderr())
	return string(b), err
}
