// Package npmtest runs a Node script of the repository from a Go test, for
// the checks against independent JavaScript implementations (ethers,
// OpenZeppelin): it installs what the directory's package-lock.json pins
// (npm ci) unless node_modules already holds exactly that, and skips the
// test only where node or npm is missing or the npm registry cannot be
// reached.
package npmtest

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Run runs `node script args...` in dir after installing its packages and
// returns its combined output and error. what names the check in skips.
func Run(t *testing.T, dir, what, script string, args ...string) ([]byte, error) {
	t.Helper()
	node, nodeErr := exec.LookPath("node")
	npm, npmErr := exec.LookPath("npm")
	if nodeErr != nil || npmErr != nil {
		t.Skipf("node and npm are not both on PATH: %s not run", what)
	}
	dir, err := filepath.Abs(dir)
	require.NoError(t, err)
	if !lockedInstalled(t, dir) {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		install := exec.CommandContext(ctx, npm, "ci", "--no-audit", "--no-fund")
		install.Dir = dir
		out, err := install.CombinedOutput()
		if err != nil {
			if ctx.Err() != nil {
				t.Fatalf("npm ci in %s did not finish within 3 minutes:\n%s", dir, out)
			}
			if NetworkError(out) {
				t.Skipf("npm cannot reach the registry, %s not run (npm ci: %v):\n%s", what, err, out)
			}
			t.Fatalf("npm ci in %s: %v\n%s", dir, err, out)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, append([]string{script}, args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	t.Logf("node %s:\n%s", script, out)
	return out, err
}

// lockedInstalled reports whether node_modules holds every package that
// package.json names at the version package-lock.json pins.
func lockedInstalled(t *testing.T, dir string) bool {
	t.Helper()
	var manifest struct {
		Dependencies    map[string]string `json:"dependencies"`
		DevDependencies map[string]string `json:"devDependencies"`
	}
	var lock struct {
		Packages map[string]struct {
			Version string `json:"version"`
		} `json:"packages"`
	}
	readJSON(t, filepath.Join(dir, "package.json"), &manifest)
	readJSON(t, filepath.Join(dir, "package-lock.json"), &lock)
	for _, deps := range []map[string]string{manifest.Dependencies, manifest.DevDependencies} {
		for p := range deps {
			locked, ok := lock.Packages["node_modules/"+p]
			require.True(t, ok, "%s is not in %s/package-lock.json", p, dir)
			var installed struct {
				Version string `json:"version"`
			}
			raw, err := os.ReadFile(filepath.Join(dir, "node_modules", p, "package.json"))
			if err != nil || json.Unmarshal(raw, &installed) != nil || installed.Version != locked.Version {
				return false
			}
		}
	}
	return true
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, v), path)
}

// networkErrorRE matches how npm reports a registry it cannot reach: its
// "network" error class and the system errors behind it.
var networkErrorRE = regexp.MustCompile(`(?m)^npm (?:ERR!|error) network |` +
	`\b(?:ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH|ENETDOWN|ESOCKETTIMEDOUT|ERR_SOCKET_TIMEOUT)\b`)

// NetworkError reports whether npm's output says the registry could not
// be reached.
func NetworkError(out []byte) bool { return networkErrorRE.Match(out) }
