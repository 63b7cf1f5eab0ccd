package cmd_test

import (
	"strings"
	"testing"
)

// TestTxWaitFlags: every command that broadcasts a tx (autocli's, the
// modules' own, the SDK's) takes --no-wait and --wait-timeout; a query
// does not, nor gentx, which writes its tx into the genesis; a wait of no
// time is refused before anything is signed.
func TestTxWaitFlags(t *testing.T) {
	home := t.TempDir()
	run := cliRunner(home)
	for _, args := range [][]string{
		{"tx", "provider", "bond", "--help"},
		{"tx", "bank", "send", "--help"},
		{"tx", "bridge", "withdraw-to-evm", "--help"},
		{"tx", "broadcast", "--help"},
		{"lease", "check", "--help"},
	} {
		code, out := run(args...)
		if code != 0 {
			t.Fatalf("%s: exit status %d: %s", strings.Join(args, " "), code, out)
		}
		for _, f := range []string{"--no-wait ", "--wait-timeout duration "} {
			if !strings.Contains(out, f) {
				t.Errorf("%s lacks %s:\n%s", strings.Join(args, " "), f, out)
			}
		}
	}
	for _, args := range [][]string{{"q", "bank", "balances", "--help"}, {"genesis", "gentx", "--help"}} {
		if code, out := run(args...); code != 0 || strings.Contains(out, "--no-wait") {
			t.Errorf("%s: exit status %d, lists --no-wait: %t", strings.Join(args, " "), code, strings.Contains(out, "--no-wait"))
		}
	}

	if code, out := run("keys", "add", "a", "--keyring-backend", "test"); code != 0 {
		t.Fatalf("keys add: exit status %d: %s", code, out)
	}
	to := "idle1qyqszqgpqyqszqgpqyqszqgpqyqszqgpvl2mga"
	code, out := run("tx", "bank", "send", "a", to, "1ugpu", "--keyring-backend", "test",
		"--gas", "100000", "--fees", "1ugpu", "--wait-timeout", "0s", "--chain-id", "c")
	if first, _, _ := strings.Cut(out, "\n"); code != 1 || first != "Error: --wait-timeout must be positive (or --no-wait)" {
		t.Fatalf("exit status %d, output %q", code, out)
	}
}
