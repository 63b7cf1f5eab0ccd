package cmd_test

import (
	"bytes"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idlegpu/idlegpu/app/apptesting"
	"github.com/idlegpu/idlegpu/cmd/idlegpud/cmd"
)

// TestCLIRefusesNonCanonicalJSONTx runs the real tx commands that read a
// JSON tx on one whose amount is "0x10" (16 to the SDK's JSON decoder, not
// what a person reads): each exits 1 with the typed error naming the field
// and prints nothing; the canonical tx signs, and encodes to the bytes the
// SDK's own decoder gives.
func TestCLIRefusesNonCanonicalJSONTx(t *testing.T) {
	home, dir := t.TempDir(), t.TempDir()
	run := func(args ...string) (code int, stdout, stderr string) {
		root := cmd.NewRootCmd()
		var out, errb bytes.Buffer
		root.SetOut(&out)
		root.SetErr(&errb)
		code = cmd.Execute(root, append([]string{"--home", home}, args...))
		return code, out.String(), errb.String()
	}
	if code, _, stderr := run("keys", "add", "a", "--keyring-backend", "test"); code != 0 {
		t.Fatalf("keys add: exit status %d: %s", code, stderr)
	}
	_, addr, _ := run("keys", "show", "a", "-a", "--keyring-backend", "test")
	addr = strings.TrimSpace(addr)
	code, good, stderr := run("tx", "bank", "send", "a", addr, "16ugpu", "--fees", "1000ugpu", "--generate-only",
		"--keyring-backend", "test", "--offline", "--account-number", "1", "--sequence", "0")
	if code != 0 || strings.Count(good, `"amount":"16"`) != 1 {
		t.Fatalf("generate-only: exit status %d: %s%s", code, good, stderr)
	}
	write := func(name, content string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	goodFile := write("good.json", good)
	bad := write("bad.json", strings.Replace(good, `"amount":"16"`, `"amount":"0x10"`, 1))
	signed := filepath.Join(dir, "signed.json")
	offline := []string{"--keyring-backend", "test", "--offline", "--account-number", "1", "--sequence", "0", "--chain-id", "t"}

	const want = `Error: body.messages[0].amount[0].amount: "0x10" is not a canonical decimal integer: non-canonical number` + "\n"
	for _, args := range [][]string{
		append([]string{"tx", "sign", bad, "--from", "a", "--output-document", signed}, offline...),
		append([]string{"tx", "sign-batch", bad, "--from", "a"}, offline...),
		append([]string{"tx", "multi-sign", bad, "a", write("sig.json", "{}")}, offline...),
		append([]string{"tx", "validate-signatures", bad}, offline...),
		{"tx", "encode", bad},
		{"tx", "broadcast", bad},
	} {
		t.Run(args[1], func(t *testing.T) {
			code, stdout, stderr := run(args...)
			if code != 1 || stderr != want || stdout != "" {
				t.Fatalf("exit status %d, stderr %q, stdout %q; want 1, %q and nothing", code, stderr, stdout, want)
			}
		})
	}
	if _, err := os.Stat(signed); !os.IsNotExist(err) {
		t.Fatalf("tx sign wrote %s: %v", signed, err)
	}

	t.Run("canonical", func(t *testing.T) {
		code, stdout, stderr := run(append([]string{"tx", "sign", goodFile, "--from", "a"}, offline...)...)
		if code != 0 || !strings.Contains(stdout, `"signatures":["`) {
			t.Fatalf("tx sign: exit status %d: %s%s", code, stdout, stderr)
		}
		code, stdout, stderr = run("tx", "encode", goodFile)
		if code != 0 {
			t.Fatalf("tx encode: exit status %d: %s", code, stderr)
		}
		cfg := apptesting.NewApp(t).TxConfig()
		tx, err := cfg.TxJSONDecoder()([]byte(good))
		if err != nil {
			t.Fatal(err)
		}
		bz, err := cfg.TxEncoder()(tx)
		if err != nil {
			t.Fatal(err)
		}
		if want := base64.StdEncoding.EncodeToString(bz) + "\n"; stdout != want {
			t.Fatalf("tx encode printed %q, the SDK's decoder gives %q", stdout, want)
		}
	})
}
