package cmd_test

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/cmd/idlegpud/cmd"
)

// TestCLIMessages runs the real root command and checks the first line a
// person sees on stderr, and whether usage follows it.
func TestCLIMessages(t *testing.T) {
	home := t.TempDir()
	inv := filepath.Join(t.TempDir(), "inv.json")
	if err := os.WriteFile(inv, []byte(`{"gpus":[{"uuid":"bad","model":"x","memory_mib":"1"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	// register-gpus reads its signer from the keyring before it checks GPUs.
	keys := cmd.NewRootCmd()
	keys.SetOut(&bytes.Buffer{})
	keys.SetErr(&bytes.Buffer{})
	if code := cmd.Execute(keys, []string{"--home", home, "keys", "add", "a", "--keyring-backend", "test"}); code != 0 {
		t.Fatalf("keys add: exit status %d", code)
	}
	for _, tc := range []struct {
		args  string
		first string
		usage bool
	}{
		{"tx provider bond -1ugpu --from a", `Error: amount: "-1ugpu" must be positive`, false},
		{"tx provider bond 100 --from a", `Error: amount: "100" has no denom: add one, e.g. 0.0001gpu or 100ugpu`, false},
		{"tx provider bond 0ugpu --from a", `Error: amount: "0ugpu" reads as 0 of denom ugpu: an amount must be positive, in plain decimal digits`, false},
		{"tx provider unbond 2.5 --from a", `Error: amount: "2.5" has no denom: add one, e.g. 2.5gpu or 2500000ugpu`, false},
		{"tx provider bond 1.0000005gpu --from a",
			`Error: amount: "1.0000005gpu" is a fraction of a base unit: gpu has 6 decimals, the smallest step is 0.000001gpu (1ugpu)`, false},
		{"tx provider bond 1.5gpu/gpu-h --from a",
			`Error: amount: "1.5gpu/gpu-h" names gpu/gpu-h, which is no denom: write the unit alone (only a price may end in /gpu-h)`, false},
		// A price reads as post-job's --max-price does, never as a bare number.
		{"q offer candidates --max-price 50000", `Error: --max-price: "50000" has no denom: add one, e.g. 0.05usdc or 50000uusdc`, false},
		{"q offer search --max-price 1.0000005usdc",
			`Error: --max-price: "1.0000005usdc" is a fraction of a base unit: usdc has 6 decimals, the smallest step is 0.000001usdc (1uusdc)`, false},
		{"q offer candidates --max-price 3000000UUSDC",
			`Error: --max-price: "3000000UUSDC" names the base denom uusdc in another case: base denoms are exact, write uusdc`, false},
		{"tx auction close-lease -1 --from a", `Error: lease-id: "-1" must be a non-negative integer`, false},
		{"tx auction close-lease --from a -- -1", `Error: lease-id: "-1" must be a non-negative integer`, false},
		{"tx auction close-lease abc --from a", `Error: lease-id: "abc" is not a number`, false},
		{"tx auction post-job --model= --duration 1h --max-price 1ugpu --image x --manifest x --from a --keyring-backend test",
			"Error: --model: empty model name; name a GPU model exactly as NVML does, or omit --model for any model", false},
		// Fees and amounts are read before anything is signed or sent: the
		// SDK's factory panicked on a bare fee, and read 0x10 as 0 of x10….
		{"tx provider bond 1ugpu --from a --fees 1000", `Error: --fees: "1000" has no denom: write it like 1000ugpu`, false},
		{"tx provider bond 1ugpu --from a --fees 0x10ugpu",
			`Error: --fees: "0x10ugpu" reads as 0 of denom x10ugpu: an amount must be positive, in plain decimal digits`, false},
		{"tx provider bond 1ugpu --from a --gas-prices 0.0025", `Error: --gas-prices: "0.0025" has no denom: write it like 0.0025ugpu`, false},
		{"tx provider bond 0x10ugpu --from a", `Error: amount: "0x10ugpu" reads as 0 of denom x10ugpu: an amount must be positive, in plain decimal digits`, false},
		{"tx provider bond +5ugpu --from a", `Error: amount: "+5ugpu" is not an amount: write plain decimal digits, then the denom, e.g. 1000000ugpu`, false},
		{"tx provider register-provider m eu http://127.0.0.1:1 --agents 0xabc --from a",
			`Error: --agents: "0xabc" is neither a key name nor an account address (idle1… or 0x and 40 hex digits)`, false},
		{"tx provider bond 1ugpu 2ugpu", `Error: accepts 1 arg(s), received 2`, true},
		{"tx provider bond --bogus 1ugpu", `Error: unknown flag: --bogus`, true},
		{"tx provider register-gpus " + inv + " --from a --keyring-backend test",
			`Error: "bad": want GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx: invalid gpu uuid`, false},
	} {
		t.Run(tc.args, func(t *testing.T) {
			root := cmd.NewRootCmd()
			var out, errb bytes.Buffer
			root.SetOut(&out)
			root.SetErr(&errb)
			args := append([]string{"--home", home}, strings.Fields(tc.args)...)
			if code := cmd.Execute(root, args); code != 1 {
				t.Fatalf("exit status %d, want 1", code)
			}
			got := errb.String()
			if first, _, _ := strings.Cut(got, "\n"); first != tc.first {
				t.Fatalf("first line %q, want %q (stderr %q)", first, tc.first, got)
			}
			if strings.Contains(got, "Usage:") != tc.usage {
				t.Fatalf("usage shown %t, want %t: %q", !tc.usage, tc.usage, got)
			}
			if strings.Contains(got, ".go:") {
				t.Fatalf("stderr carries a source path: %q", got)
			}
		})
	}
}

// TestCLIPostJobHelp: the manifest sender exists, so the help names it.
func TestCLIPostJobHelp(t *testing.T) {
	root := cmd.NewRootCmd()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	if code := cmd.Execute(root, []string{"--home", t.TempDir(), "tx", "auction", "post-job", "--help"}); code != 0 {
		t.Fatalf("exit status %d", code)
	}
	const want = "exists: idlegpud lease send-manifest <lease-id> <manifest.json> --from renter."
	if !strings.Contains(out.String(), want) || strings.Contains(out.String(), "coming") {
		t.Fatalf("help lacks %q or still says coming:\n%s", want, out.String())
	}
}

// TestCLILeaseFlags: the lease commands that only talk to the provider's
// endpoint list the flags they read (signer key, node, chain id), not the
// tx flags of a command that broadcasts; `lease check --report` does
// broadcast, so it keeps them.
func TestCLILeaseFlags(t *testing.T) {
	txOnly := []string{"--gas", "--fees", "--broadcast-mode", "--gas-prices", "--generate-only", "--sign-mode", "--fee-payer", "--dry-run", "--note"}
	for _, sub := range []string{"send-manifest", "status", "logs", "samples", "check"} {
		t.Run(sub, func(t *testing.T) {
			root := cmd.NewRootCmd()
			var out bytes.Buffer
			root.SetOut(&out)
			root.SetErr(&out)
			if code := cmd.Execute(root, []string{"--home", t.TempDir(), "lease", sub, "--help"}); code != 0 {
				t.Fatalf("exit status %d: %s", code, out.String())
			}
			help := out.String()
			for _, f := range []string{"--from", "--keyring-backend", "--keyring-dir", "--node", "--chain-id"} {
				if !strings.Contains(help, f+" ") {
					t.Errorf("help lacks %s:\n%s", f, help)
				}
			}
			if got := strings.Contains(help, "--output "); got != (sub == "samples" || sub == "check") {
				t.Errorf("help lists --output: %t:\n%s", got, help)
			}
			for _, f := range txOnly {
				if got := strings.Contains(help, f+" "); got != (sub == "check") {
					t.Errorf("help lists %s: %t, want %t:\n%s", f, got, sub == "check", help)
				}
			}
		})
	}
}

// TestCLIKeyringDir: --keyring-dir alone picks the keyring directory; the
// backend comes from client.toml (test here, since the default os backend
// needs a desktop keyring) just as from --keyring-backend.
func TestCLIKeyringDir(t *testing.T) {
	home, dir := t.TempDir(), t.TempDir()
	run := cliRunner(home)
	if code, out := run("keys", "add", "a", "--keyring-backend", "test", "--keyring-dir", dir); code != 0 {
		t.Fatalf("keys add: exit status %d: %s", code, out)
	}
	if _, err := os.Stat(filepath.Join(dir, "keyring-test", "a.info")); err != nil {
		t.Fatalf("the key is not in --keyring-dir: %v", err)
	}
	// client.toml (written by the first command) names the backend.
	toml := filepath.Join(home, "config", "client.toml")
	bz, err := os.ReadFile(toml)
	if err != nil {
		t.Fatal(err)
	}
	set := strings.Replace(string(bz), `keyring-backend = "os"`, `keyring-backend = "test"`, 1)
	if set == string(bz) {
		t.Fatalf("client.toml names no os keyring backend:\n%s", bz)
	}
	if err := os.WriteFile(toml, []byte(set), 0o600); err != nil {
		t.Fatal(err)
	}

	if code, _ := run("keys", "show", "a", "-a"); code == 0 {
		t.Fatal("without --keyring-dir the key is found in --home: the test proves nothing")
	}
	for _, args := range [][]string{
		{"keys", "show", "a", "-a", "--keyring-dir", dir},
		{"keys", "show", "a", "-a", "--keyring-dir", dir, "--keyring-backend", "test"},
		{"tx", "provider", "bond", "1ugpu", "--from", "a", "--keyring-dir", dir, "--generate-only", "--chain-id", "c"},
	} {
		if code, out := run(args...); code != 0 || !strings.Contains(out, "idle1") {
			t.Errorf("%s: exit status %d: %s", strings.Join(args, " "), code, out)
		}
	}
}

// exitCodeErr carries its exit status, as cometbft's cli.ExitCoder.
type exitCodeErr int

func (e exitCodeErr) Error() string { return fmt.Sprintf("failed with status %d", int(e)) }
func (e exitCodeErr) ExitCode() int { return int(e) }

// TestCLIExitCode: an error that carries an exit status, wrapped or not,
// exits with it; any other error exits 1, and so does a carried 0, since
// an error is never success.
func TestCLIExitCode(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		code int
	}{
		{"carried", exitCodeErr(3), 3},
		{"wrapped", fmt.Errorf("start: %w", exitCodeErr(42)), 42},
		{"plain", errors.New("boom"), 1},
		{"carried zero", exitCodeErr(0), 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := cmd.NewRootCmd()
			root.AddCommand(&cobra.Command{Use: "fail", RunE: func(*cobra.Command, []string) error { return tc.err }})
			var out bytes.Buffer
			root.SetOut(&out)
			root.SetErr(&out)
			if code := cmd.Execute(root, []string{"--home", t.TempDir(), "fail"}); code != tc.code {
				t.Fatalf("exit status %d, want %d", code, tc.code)
			}
			if want := "Error: " + tc.err.Error() + "\n"; out.String() != want {
				t.Fatalf("stderr %q, want %q", out.String(), want)
			}
		})
	}
}

// TestCLIAgentsTakeEVMAddresses: a 0x address in a repeated account flag
// becomes its account's bech32 in the message, as everywhere else on the
// command line; autocli kept it as typed and the chain refused the tx.
func TestCLIAgentsTakeEVMAddresses(t *testing.T) {
	home := t.TempDir()
	run := cliRunner(home)
	if code, out := run("keys", "add", "a", "--keyring-backend", "test"); code != 0 {
		t.Fatalf("keys add: exit status %d: %s", code, out)
	}
	code, out := run("tx", "provider", "register-provider", "m", "eu", "http://127.0.0.1:1", "--from", "a", "--keyring-backend", "test",
		"--agents", "0x0123456789abcdef0123456789abcdef01234567", "--agents", "0x0123456789ABCDEF0123456789ABCDEF01234568",
		"--generate-only", "--chain-id", "c")
	if code != 0 {
		t.Fatalf("exit status %d: %s", code, out)
	}
	account := func(hexAddr string) string {
		bz, err := hex.DecodeString(hexAddr)
		if err != nil {
			t.Fatal(err)
		}
		return sdk.MustBech32ifyAddressBytes("idle", bz)
	}
	want := `"agents":["` + account("0123456789abcdef0123456789abcdef01234567") + `","` + account("0123456789abcdef0123456789abcdef01234568") + `"]`
	if !strings.Contains(out, want) {
		t.Fatalf("the message lacks %s:\n%s", want, out)
	}
}

// cliRunner runs the CLI in home: its exit status and everything it printed.
func cliRunner(home string) func(args ...string) (int, string) {
	return func(args ...string) (int, string) {
		root := cmd.NewRootCmd()
		var out bytes.Buffer
		root.SetOut(&out)
		root.SetErr(&out)
		code := cmd.Execute(root, append([]string{"--home", home}, args...))
		return code, out.String()
	}
}

// TestCLIAmountsReadAlike: an autocli amount in display units, in any
// case, builds the very tx its base units do.
func TestCLIAmountsReadAlike(t *testing.T) {
	run := cliRunner(t.TempDir())
	if code, out := run("keys", "add", "a", "--keyring-backend", "test"); code != 0 {
		t.Fatalf("keys add: exit status %d: %s", code, out)
	}
	var txs []string
	for _, amount := range []string{"1500000ugpu", "1.5gpu", "1.5 GPU"} {
		code, out := run("tx", "provider", "bond", amount, "--from", "a", "--keyring-backend", "test", "--generate-only", "--chain-id", "c")
		if code != 0 {
			t.Fatalf("bond %s: exit status %d: %s", amount, code, out)
		}
		txs = append(txs, out)
	}
	if want := `"amount":{"denom":"ugpu","amount":"1500000"}`; !strings.Contains(txs[0], want) {
		t.Fatalf("the message lacks %s:\n%s", want, txs[0])
	}
	for i, amount := range []string{"1.5gpu", "1.5 GPU"} {
		if txs[i+1] != txs[0] {
			t.Errorf("bond %s built\n%s\nnot\n%s", amount, txs[i+1], txs[0])
		}
	}
}
