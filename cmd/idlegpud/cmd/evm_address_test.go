package cmd_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/cmd/idlegpud/cmd"
)

// TestCLITakesEVMAddresses: a 0x address stands for the account with the
// same 20 bytes wherever the CLI takes an account, here as bank send's
// recipient, through the real root command.
func TestCLITakesEVMAddresses(t *testing.T) {
	home := t.TempDir()
	run := func(args ...string) string {
		root := cmd.NewRootCmd()
		var out, errb bytes.Buffer
		root.SetOut(&out)
		root.SetErr(&errb)
		code := cmd.Execute(root, append([]string{"--home", home}, args...))
		require.Zero(t, code, "idlegpud %s: %s", strings.Join(args, " "), errb.String())
		return out.String()
	}
	run("keys", "add", "a", "--keyring-backend", "test")
	// 0x2c7536E3605D9C16a7a3D7b1898e529396a65c23 is 2c75…5c23 in bech32.
	for _, to := range []string{"0x2c7536E3605D9C16a7a3D7b1898e529396a65c23", "0x2c7536e3605d9c16a7a3d7b1898e529396a65c23"} {
		tx := run("tx", "bank", "send", "a", to, "1uusdc", "--generate-only", "--keyring-backend", "test", "--chain-id", "idlegpu-local")
		require.Contains(t, tx, `"to_address":"idle1936ndcmqtkwpdfar67ccnrjjjwt2vhprm20zuj"`)
	}
}
