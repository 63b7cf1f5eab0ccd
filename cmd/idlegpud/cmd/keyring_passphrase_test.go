package cmd_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/cmd/idlegpud/cmd"
)

const (
	keyringPass = "correct horse battery"
	// recoverMnemonic's first account is recoverAddress.
	recoverMnemonic = "chief adapt milk immune shoe fruit wall bargain zoo virus knife alarm cry skill jungle output rescue eager walk repeat vessel worry ostrich invest"
	recoverAddress  = "idle1mql66llqsjfs3mq0ha5mqzrgn637fdc3wzngfr"
)

// withStdin runs f with os.Stdin reading in and then end of file, as a
// service's stdin does: the client context takes os.Stdin when the root
// command is built.
func withStdin(t *testing.T, in string, f func()) {
	t.Helper()
	r, w, err := os.Pipe()
	require.NoError(t, err)
	_, err = w.WriteString(in)
	require.NoError(t, err)
	require.NoError(t, w.Close())
	saved := os.Stdin
	os.Stdin = r
	defer func() { os.Stdin = saved; _ = r.Close() }()
	f()
}

// idlegpud runs the real root command with stdin closed (or holding in)
// and returns its exit code, stdout and stderr.
func idlegpud(t *testing.T, in string, args ...string) (int, string, string) {
	t.Helper()
	var code int
	var out, errb bytes.Buffer
	withStdin(t, in, func() {
		root := cmd.NewRootCmd()
		root.SetOut(&out)
		root.SetErr(&errb)
		code = cmd.Execute(root, args)
	})
	return code, out.String(), errb.String()
}

// TestKeyringPassphraseFile: with --keyring-passphrase-file (or
// IDLEGPUD_KEYRING_PASSPHRASE_FILE) a file keyring is created, read and
// signs with stdin closed, as under systemd; without it, or with a wrong
// one, the command fails.
func TestKeyringPassphraseFile(t *testing.T) {
	home := t.TempDir()
	pf := filepath.Join(t.TempDir(), "passphrase")
	require.NoError(t, os.WriteFile(pf, []byte(keyringPass+"\n"), 0o600))
	file := []string{"--home", home, "--keyring-backend", "file"}

	code, out, errOut := idlegpud(t, "", append(file, "keys", "add", "val", "--keyring-passphrase-file", pf, "--output", "json")...)
	require.Zero(t, code, errOut)
	var added struct{ Address string }
	require.NoError(t, json.Unmarshal([]byte(out), &added), out)
	require.FileExists(t, filepath.Join(home, "keyring-file", "keyhash"), "a file keyring was made")

	t.Run("the environment names the file", func(t *testing.T) {
		t.Setenv("IDLEGPUD_KEYRING_PASSPHRASE_FILE", pf)
		code, out, errOut := idlegpud(t, "", append(file, "keys", "show", "val", "-a")...)
		require.Zero(t, code, errOut)
		require.Equal(t, added.Address, strings.TrimSpace(out))
	})

	t.Run("a tx is signed", func(t *testing.T) {
		unsigned := filepath.Join(t.TempDir(), "unsigned.json")
		code, out, errOut := idlegpud(t, "", append(file, "tx", "bank", "send", added.Address, added.Address, "1ugpu",
			"--generate-only", "--chain-id", "idlegpu-test", "--fees", "500ugpu", "--gas", "200000")...)
		require.Zero(t, code, errOut)
		require.NoError(t, os.WriteFile(unsigned, []byte(out), 0o600))
		code, out, errOut = idlegpud(t, "", append(file, "tx", "sign", unsigned, "--from", "val", "--offline",
			"--account-number", "0", "--sequence", "0", "--chain-id", "idlegpu-test", "--keyring-passphrase-file", pf)...)
		require.Zero(t, code, errOut)
		var signed struct {
			Signatures []string `json:"signatures"`
		}
		require.NoError(t, json.Unmarshal([]byte(out), &signed), out)
		require.Len(t, signed.Signatures, 1)
		require.NotEmpty(t, signed.Signatures[0])
	})

	t.Run("stdin still gives a mnemonic", func(t *testing.T) {
		code, out, errOut := idlegpud(t, recoverMnemonic+"\n", append(file, "keys", "add", "recovered", "--recover",
			"--keyring-passphrase-file", pf, "--output", "json")...)
		require.Zero(t, code, errOut)
		require.Contains(t, out, recoverAddress)
	})

	t.Run("no passphrase", func(t *testing.T) {
		code, _, errOut := idlegpud(t, "", append(file, "keys", "show", "val", "-a")...)
		require.Equal(t, 1, code)
		require.Equal(t, "Error: val is not a valid name or address: too many failed passphrase attempts: without a terminal, "+
			"give the file keyring's passphrase with --keyring-passphrase-file or $IDLEGPUD_KEYRING_PASSPHRASE_FILE\n", errOut)
	})

	t.Run("a wrong passphrase", func(t *testing.T) {
		wrong := filepath.Join(t.TempDir(), "wrong")
		require.NoError(t, os.WriteFile(wrong, []byte("not the passphrase\n"), 0o600))
		code, _, errOut := idlegpud(t, "", append(file, "keys", "show", "val", "-a", "--keyring-passphrase-file", wrong)...)
		require.Equal(t, 1, code)
		require.Equal(t, "Error: val is not a valid name or address: too many failed passphrase attempts: the passphrase in "+
			wrong+" does not unlock this keyring\n", errOut)
	})

	t.Run("a short passphrase", func(t *testing.T) {
		short := filepath.Join(t.TempDir(), "short")
		require.NoError(t, os.WriteFile(short, []byte("short\r\nsecond line\n"), 0o600))
		code, _, errOut := idlegpud(t, "", append(file, "keys", "show", "val", "--keyring-passphrase-file", short)...)
		require.Equal(t, 1, code)
		require.Equal(t, "Error: the keyring passphrase in "+short+" is 5 characters: the file keyring needs at least 8\n", errOut)
	})

	t.Run("a missing file", func(t *testing.T) {
		missing := filepath.Join(t.TempDir(), "missing")
		code, _, errOut := idlegpud(t, "", append(file, "keys", "show", "val", "--keyring-passphrase-file", missing)...)
		require.Equal(t, 1, code)
		require.Equal(t, "Error: keyring passphrase: open "+missing+": no such file or directory\n", errOut)
	})

	t.Run("other backends ignore it", func(t *testing.T) {
		missing := filepath.Join(t.TempDir(), "missing")
		code, _, errOut := idlegpud(t, "", "--home", home, "--keyring-backend", "test", "keys", "add", "t", "--keyring-passphrase-file", missing)
		require.Zero(t, code, errOut)
	})
}
