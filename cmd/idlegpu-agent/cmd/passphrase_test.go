package cmd_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cosmos/cosmos-sdk/crypto/keyring"
	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/agent/config"
	"github.com/idlegpu/idlegpu/chainclient"
)

const (
	testMnemonic = "chief adapt milk immune shoe fruit wall bargain zoo virus knife alarm cry skill jungle output rescue eager walk repeat vessel worry ostrich invest"
	testAddress  = "idle1mql66llqsjfs3mq0ha5mqzrgn637fdc3wzngfr" // of testMnemonic
	passphrase   = "correct horse battery"
)

// fileInit is init for a file keyring, no node, simulated GPUs.
func fileInit(home string, extra ...string) []string {
	return append([]string{"init", "--home", home, "--gpu-backend", "sim", "--node", "tcp://127.0.0.1:1"}, extra...)
}

// keyAddress opens home's file keyring with pass and returns the agent key's address.
func keyAddress(t *testing.T, home, pass string) string {
	t.Helper()
	enc, err := chainclient.Encoding()
	require.NoError(t, err)
	kr, err := keyring.New(sdk.KeyringServiceName(), keyring.BackendFile, home, strings.NewReader(pass+"\n"), enc.Codec)
	require.NoError(t, err)
	rec, err := kr.Key("agent")
	require.NoError(t, err)
	addr, err := rec.GetAddress()
	require.NoError(t, err)
	return addr.String()
}

// TestFileKeyringWithoutATTY: with nothing to read the passphrase from,
// init says what to do instead of failing three times on EOF.
func TestFileKeyringWithoutATTY(t *testing.T) {
	home := t.TempDir()
	out, errOut, err := runAll(t, "", fileInit(home)...)
	require.EqualError(t, err, "the file keyring needs its passphrase and stdin is not a terminal: give it with --keyring-passphrase-file or key.passphrase_file (a file whose first line is the passphrase), or IDLEGPU_KEYRING_PASSPHRASE, or as the first line on stdin (after the mnemonic with init --recover)")
	require.Empty(t, out)
	require.NotContains(t, errOut, "EOF")
	require.NoFileExists(t, filepath.Join(home, "agent.toml"))

	_, err = run(t, "short\n", fileInit(home)...)
	require.EqualError(t, err, "the keyring passphrase from stdin is 5 characters: the file keyring needs at least 8")
}

// TestFileKeyringPassphraseFile: init records the passphrase file in the
// configuration, so a service needs nothing but the file; a wrong passphrase
// is named as such.
func TestFileKeyringPassphraseFile(t *testing.T) {
	home := t.TempDir()
	pf := filepath.Join(t.TempDir(), "passphrase")
	require.NoError(t, os.WriteFile(pf, []byte(passphrase+"\n"), 0o600))
	out, err := run(t, "", fileInit(home, "--keyring-passphrase-file", pf)...)
	require.NoError(t, err)
	_, rest, ok := strings.Cut(out, `agent key "agent": `)
	require.True(t, ok, out)
	addr := strings.Fields(rest)[0]
	require.Equal(t, addr, keyAddress(t, home, passphrase))
	c, err := config.Load(filepath.Join(home, "agent.toml"))
	require.NoError(t, err)
	require.Equal(t, pf, c.Key.PassphraseFile)

	// status unlocks the key with the file alone, then finds no node.
	_, errOut, err := runAll(t, "", "status", "--home", home)
	require.ErrorContains(t, err, "chain tcp://127.0.0.1:1")
	require.NotContains(t, errOut, "passphrase")

	require.NoError(t, os.WriteFile(pf, []byte("not the passphrase\n"), 0o600))
	_, err = run(t, "", "status", "--home", home)
	require.ErrorIs(t, err, keyring.ErrMaxPassPhraseAttempts)
	require.ErrorContains(t, err, "the passphrase from "+pf+" does not unlock the keyring in "+home)
}

// TestFileKeyringPassphraseFromEnv: the environment variable serves a
// container; stdin's first line serves a pipe.
func TestFileKeyringPassphraseFromEnv(t *testing.T) {
	home := t.TempDir()
	t.Setenv("IDLEGPU_KEYRING_PASSPHRASE", passphrase)
	_, err := run(t, "", fileInit(home)...)
	require.NoError(t, err)
	_, err = run(t, "", "status", "--home", home)
	require.ErrorContains(t, err, "chain tcp://127.0.0.1:1")

	t.Setenv("IDLEGPU_KEYRING_PASSPHRASE", "")
	_, err = run(t, passphrase+"\n", "status", "--home", home)
	require.ErrorContains(t, err, "chain tcp://127.0.0.1:1")
}

// TestInitRecoverReadsMnemonicThenPassphrase: --recover reads the mnemonic
// first and then the passphrase, each a line of stdin, or each from a file.
func TestInitRecoverReadsMnemonicThenPassphrase(t *testing.T) {
	home := t.TempDir()
	out, err := run(t, testMnemonic+"\n"+passphrase+"\n", fileInit(home, "--recover")...)
	require.NoError(t, err)
	require.Contains(t, out, `agent key "agent": `+testAddress+"\n")
	require.Equal(t, testAddress, keyAddress(t, home, passphrase))

	dir := t.TempDir()
	mf, pf := filepath.Join(dir, "mnemonic"), filepath.Join(dir, "passphrase")
	require.NoError(t, os.WriteFile(mf, []byte(testMnemonic+"\n"), 0o600))
	require.NoError(t, os.WriteFile(pf, []byte(passphrase), 0o600))
	home = t.TempDir()
	out, err = run(t, "", fileInit(home, "--recover", "--mnemonic-file", mf, "--keyring-passphrase-file", pf)...)
	require.NoError(t, err)
	require.Contains(t, out, `agent key "agent": `+testAddress+"\n")
	require.Equal(t, testAddress, keyAddress(t, home, passphrase))

	_, err = run(t, "", fileInit(t.TempDir(), "--recover")...)
	require.EqualError(t, err, "--recover: no mnemonic: give it as the first line on stdin or with --mnemonic-file")
}

// TestInitNextSteps: init ends with what a provider does next.
func TestInitNextSteps(t *testing.T) {
	home := t.TempDir()
	out, err := run(t, "", "init", "--home", home, "--keyring-backend", "test", "--gpu-backend", "sim")
	require.NoError(t, err)
	_, rest, _ := strings.Cut(out, `agent key "agent": `)
	addr := strings.Fields(rest)[0]
	require.Contains(t, out, "\nnext:\n"+
		"  1. fund the agent key "+addr+": the stake to bond (register --dry-run says how much) and fees, e.g. idlegpud tx bank send <funded key> "+addr+" <amount>ugpu\n"+
		"  2. open TCP port 9180 (endpoint.listen 0.0.0.0:9180) to renters: the endpoint must be reachable at the URL you register\n"+
		"  3. idlegpu-agent register --region <continent-country-site> --endpoint https://<this host>:9180 --bond <stake>ugpu\n"+
		"  4. idlegpu-agent doctor, then idlegpu-agent run (or the systemd unit or the container: docs/providers.md)\n")

	// An agent of another operator's provider needs fees only, and naming.
	provider := "idle1qyqszqgpqyqszqgpqyqszqgpqyqszqgpvl2mga"
	out, err = run(t, "", "init", "--home", t.TempDir(), "--keyring-backend", "test", "--gpu-backend", "sim", "--provider", provider)
	require.NoError(t, err)
	_, rest, _ = strings.Cut(out, `agent key "agent": `)
	addr = strings.Fields(rest)[0]
	require.Contains(t, out, "\nnext:\n"+
		"  1. fund the agent key "+addr+" with fees, e.g. idlegpud tx bank send <funded key> "+addr+" <amount>ugpu\n"+
		"  2. open TCP port 9180 (endpoint.listen 0.0.0.0:9180) to renters: the endpoint must be reachable at the URL you register\n"+
		"  3. the operator names this agent: idlegpud tx provider update-provider <moniker> <region> <endpoint> --agents "+addr+" --from "+provider+"\n"+
		"     then: idlegpu-agent register (it registers this machine's GPUs)\n"+
		"  4. idlegpu-agent doctor, then idlegpu-agent run (or the systemd unit or the container: docs/providers.md)\n")
}
