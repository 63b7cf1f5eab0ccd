package cmd

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/cosmos/cosmos-sdk/crypto/keyring"

	"github.com/idlegpu/idlegpu/agent/config"
)

const (
	// envKeyringPassphrase is the file keyring's passphrase for services
	// that pass secrets in the environment (containers).
	envKeyringPassphrase = "IDLEGPU_KEYRING_PASSPHRASE"
	// flagPassphraseFile names a file whose first line is the passphrase.
	flagPassphraseFile = "keyring-passphrase-file"
	// minPassphrase is the cosmos-sdk file keyring's minimum length.
	minPassphrase = 8
)

// errNoPassphrase: the file keyring must be unlocked and nothing can say
// how; the SDK's prompt would otherwise fail three times on EOF.
var errNoPassphrase = errors.New("the file keyring needs its passphrase and stdin is not a terminal: give it with --" + flagPassphraseFile +
	" or key.passphrase_file (a file whose first line is the passphrase), or " + envKeyringPassphrase +
	", or as the first line on stdin (after the mnemonic with init --recover)")

// keyringSource is where the file keyring's passphrase comes from.
type keyringSource struct {
	input io.Reader // what keyring.New reads
	from  string    // where the passphrase came from, for errors ("" when the terminal asks)
}

// keyringInput finds the file keyring's passphrase, first of: the
// --keyring-passphrase-file flag, key.passphrase_file, the
// IDLEGPU_KEYRING_PASSPHRASE variable, the terminal (the SDK asks), the
// next line of stdin. Other backends need no passphrase and get stdin.
//
// stdin is the command's buffered stdin, shared with init --recover's
// mnemonic so the order of lines is defined.
func keyringInput(cmd *cobra.Command, k config.Key, stdin *bufio.Reader) (keyringSource, error) {
	if k.KeyringBackend != keyring.BackendFile {
		return keyringSource{input: stdin}, nil
	}
	file, _ := cmd.Flags().GetString(flagPassphraseFile)
	if file == "" {
		file = k.PassphraseFile
	}
	var pass, from string
	switch env := os.Getenv(envKeyringPassphrase); {
	case file != "":
		b, err := os.ReadFile(file)
		if err != nil {
			return keyringSource{}, fmt.Errorf("keyring passphrase: %w", err)
		}
		line, _, _ := bytes.Cut(b, []byte("\n"))
		pass, from = strings.TrimRight(string(line), "\r"), file
	case env != "":
		pass, from = env, envKeyringPassphrase
	case isTerminal(cmd.InOrStdin()):
		// The SDK's prompt reads the terminal itself (and asks twice for a new keyring).
		return keyringSource{input: cmd.InOrStdin()}, nil
	default:
		line, err := stdin.ReadString('\n')
		if line == "" && err != nil {
			return keyringSource{}, errNoPassphrase
		}
		pass, from = strings.TrimRight(line, "\r\n"), "stdin"
	}
	if len(pass) < minPassphrase {
		return keyringSource{}, fmt.Errorf("the keyring passphrase from %s is %d characters: the file keyring needs at least %d", from, len(pass), minPassphrase)
	}
	return keyringSource{input: repeatLine(pass), from: from}, nil
}

// unlockError names the passphrase's source when it did not unlock dir.
func (s keyringSource) unlockError(err error, dir string) error {
	if s.from == "" || !errors.Is(err, keyring.ErrMaxPassPhraseAttempts) {
		return err
	}
	abs, _ := filepath.Abs(dir)
	return fmt.Errorf("%w: the passphrase from %s does not unlock the keyring in %s", err, s.from, abs)
}

// repeatLine answers every prompt with the same line: the SDK asks once to
// unlock and twice for a new keyring, each time through a fresh buffer.
func repeatLine(s string) io.Reader { return &repeater{line: []byte(s + "\n")} }

type repeater struct {
	line []byte
	off  int
}

func (r *repeater) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		c := copy(p[n:], r.line[r.off:])
		n += c
		r.off = (r.off + c) % len(r.line)
	}
	return n, nil
}

// isTerminal says whether r is a terminal, the case in which the SDK
// prompts on it (/dev/null, a service's usual stdin, is not one).
func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
