package cmd

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/cosmos/cosmos-sdk/client"
	"github.com/cosmos/cosmos-sdk/client/flags"
	"github.com/cosmos/cosmos-sdk/client/input"
	"github.com/cosmos/cosmos-sdk/crypto/keyring"
)

const (
	// flagKeyringPassphraseFile names a file whose first line unlocks the
	// file keyring, for commands run without a terminal (systemd units,
	// scripts). The agent and the bridge take the same flag.
	flagKeyringPassphraseFile = "keyring-passphrase-file"
	// envKeyringPassphraseFile is the flag's environment variable, named
	// as the SDK names the node's own (IDLEGPUD_ and the flag).
	envKeyringPassphraseFile = "IDLEGPUD_KEYRING_PASSPHRASE_FILE"
)

// addKeyringPassphraseFlag adds --keyring-passphrase-file to every command.
func addKeyringPassphraseFlag(root *cobra.Command) {
	root.PersistentFlags().String(flagKeyringPassphraseFile, "",
		"file whose first line is the file keyring's passphrase, read instead of stdin (a terminal is still asked); default $"+envKeyringPassphraseFile)
}

// keyringPassphraseFile reopens ctx's keyring, when it is a file keyring
// and a passphrase file is named (the flag, else the environment), so that
// every passphrase prompt is answered from the file: the SDK reads it from
// the keyring's input, which is otherwise stdin, and a service has none.
// Everything else a command reads (a mnemonic, a confirmation) still comes
// from stdin. Other backends ask nothing and are left as they are.
func keyringPassphraseFile(ctx client.Context, fs *pflag.FlagSet) (client.Context, error) {
	path, _ := fs.GetString(flagKeyringPassphraseFile)
	if path == "" {
		path = os.Getenv(envKeyringPassphraseFile)
	}
	if path == "" {
		return ctx, nil
	}
	backendFlag := fs.Lookup(flags.FlagKeyringBackend)
	backend := ""
	switch {
	case backendFlag != nil && backendFlag.Changed:
		backend = backendFlag.Value.String()
	case ctx.Keyring != nil:
		backend = ctx.Keyring.Backend() // client.toml's
	}
	if backend != keyring.BackendFile || ctx.Simulate {
		return ctx, nil
	}
	pass, err := readPassphraseFile(path)
	if err != nil {
		return ctx, err
	}
	kr, err := client.NewKeyringFromBackend(ctx.WithInput(repeatLine(pass)), backend)
	if err != nil {
		return ctx, err
	}
	// Each command reads its flags again (client.GetClientTxContext) and
	// reopens the keyring, with stdin as its input, when --keyring-backend
	// was given: the flag is consumed here, the keyring it named kept.
	if backendFlag != nil {
		backendFlag.Changed = false
	}
	return ctx.WithKeyring(kr), nil
}

// readPassphraseFile is the file's first line, without its line ending.
func readPassphraseFile(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("keyring passphrase: %w", err)
	}
	line, _, _ := bytes.Cut(b, []byte("\n"))
	pass := strings.TrimRight(string(line), "\r")
	if len(pass) < input.MinPassLength {
		return "", fmt.Errorf("the keyring passphrase in %s is %d characters: the file keyring needs at least %d", path, len(pass), input.MinPassLength)
	}
	return pass, nil
}

// repeatLine answers every prompt with the same line: the SDK asks once to
// unlock and twice for a new keyring, each prompt through a fresh buffer.
func repeatLine(s string) io.Reader { return &repeater{line: []byte(s + "\n")} }

type repeater struct {
	line []byte
	off  int
}

// Read gives at most the rest of the current line, so a buffer that reads
// ahead and is then dropped never leaves the next one mid-line.
func (r *repeater) Read(p []byte) (int, error) {
	n := copy(p, r.line[r.off:])
	r.off = (r.off + n) % len(r.line)
	return n, nil
}

// passphraseHint says what to do when a file keyring stayed locked: the
// SDK's own error only counts the failed attempts (and prints "EOF" for
// each one a service's empty stdin gave).
func passphraseHint(cmd *cobra.Command, err error) error {
	if !errors.Is(err, keyring.ErrMaxPassPhraseAttempts) {
		return err
	}
	path, _ := cmd.Flags().GetString(flagKeyringPassphraseFile)
	if path == "" {
		path = os.Getenv(envKeyringPassphraseFile)
	}
	if path == "" {
		return fmt.Errorf("%w: without a terminal, give the file keyring's passphrase with --%s or $%s", err, flagKeyringPassphraseFile, envKeyringPassphraseFile)
	}
	return fmt.Errorf("%w: the passphrase in %s does not unlock this keyring", err, path)
}
