package cmd_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/agent/config"
	"github.com/idlegpu/idlegpu/chainclient"
	"github.com/idlegpu/idlegpu/cmd/idlegpu-agent/cmd"
	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
)

func run(t *testing.T, stdin string, args ...string) (string, error) {
	t.Helper()
	out, _, err := runAll(t, stdin, args...)
	return out, err
}

// runAll runs the agent command and returns its stdout and stderr.
func runAll(t *testing.T, stdin string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	root := cmd.NewRootCmd()
	var out, errOut bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errOut)
	root.SetIn(strings.NewReader(stdin))
	root.SetArgs(args)
	err = root.Execute()
	return out.String(), errOut.String(), err
}

// TestInitThenInventory: init writes a loadable configuration and a key;
// inventory --json is exactly what `idlegpud tx provider register-gpus`
// decodes (the same codec reads it into MsgRegisterGPUs).
func TestInitThenInventory(t *testing.T) {
	home := t.TempDir()
	provider := "idle1qyqszqgpqyqszqgpqyqszqgpqyqszqgpvl2mga"
	out, err := run(t, "", "init", "--home", home, "--keyring-backend", "test", "--gpu-backend", "sim", "--runner", "process", "--unsafe-process-runner", "--provider", provider)
	require.NoError(t, err)
	require.Contains(t, out, `agent key "agent": idle1`)
	require.Contains(t, out, "mnemonic (write it down")
	c, err := config.Load(filepath.Join(home, "agent.toml"))
	require.NoError(t, err)
	require.Equal(t, provider, c.Key.Provider)
	require.Equal(t, "sim", c.GPU.Backend)
	info, err := os.Stat(filepath.Join(home, "agent.toml"))
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), info.Mode().Perm())

	_, err = run(t, "", "init", "--home", home)
	require.ErrorContains(t, err, "exists; --force overwrites it")
	again, err := run(t, "", "init", "--home", home, "--force", "--keyring-backend", "test", "--gpu-backend", "sim")
	require.NoError(t, err)
	require.NotContains(t, again, "mnemonic", "the existing key is kept")

	js, err := run(t, "", "inventory", "--home", home, "--json")
	require.NoError(t, err)
	enc, err := chainclient.Encoding()
	require.NoError(t, err)
	var msg providertypes.MsgRegisterGPUs
	require.NoError(t, enc.Codec.UnmarshalJSON([]byte(js), &msg))
	require.Len(t, msg.Gpus, 4)
	for _, g := range msg.Gpus {
		require.NoError(t, g.Validate())
		require.Equal(t, "NVIDIA H100 80GB HBM3", g.Model)
		require.EqualValues(t, 81559, g.MemoryMib)
	}
	table, err := run(t, "", "inventory", "--home", home)
	require.NoError(t, err)
	require.Contains(t, table, "BACKEND sim")
	require.Contains(t, table, msg.Gpus[0].Uuid)
}

func TestInitRecoversAKey(t *testing.T) {
	home := t.TempDir()
	mnemonic := "chief adapt milk immune shoe fruit wall bargain zoo virus knife alarm cry skill jungle output rescue eager walk repeat vessel worry ostrich invest"
	out, err := run(t, mnemonic+"\n", "init", "--home", home, "--keyring-backend", "test", "--recover")
	require.NoError(t, err)
	require.Contains(t, out, "idle1mql66llqsjfs3mq0ha5mqzrgn637fdc3wzngfr", "the address of that mnemonic")
	_, err = run(t, "", "init", "--home", t.TempDir(), "--keyring-backend", "test", "--provider", "cosmos1xyz")
	require.ErrorContains(t, err, "--provider")
}
