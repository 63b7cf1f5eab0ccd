package payout_test

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

// TestOpenZeppelinAgrees runs contracts/crosscheck.mjs on the committed
// vectors: OpenZeppelin's merkle-tree must give the same roots, proofs and
// dumps, and ethers the same checkpoints, digests and signatures. It
// installs the pinned packages (npm ci) when contracts/node_modules does not
// already hold the locked versions, and skips only when node or npm is
// missing or the npm registry cannot be reached.
func TestOpenZeppelinAgrees(t *testing.T) {
	node, nodeErr := exec.LookPath("node")
	npm, npmErr := exec.LookPath("npm")
	if nodeErr != nil || npmErr != nil {
		t.Skip("node and npm are not both on PATH: OpenZeppelin merkle-tree cross-check not run")
	}
	dir, err := filepath.Abs("..")
	require.NoError(t, err)
	require.FileExists(t, filepath.Join(dir, "package-lock.json"))

	if !lockedInstalled(t, dir, "@openzeppelin/merkle-tree", "ethers") {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		install := exec.CommandContext(ctx, npm, "ci", "--no-audit", "--no-fund")
		install.Dir = dir
		out, err := install.CombinedOutput()
		if err != nil {
			if ctx.Err() != nil {
				t.Fatalf("npm ci in %s did not finish within 3 minutes:\n%s", dir, out)
			}
			if npmNetworkError(out) {
				t.Skipf("npm cannot reach the registry, OpenZeppelin cross-check not run (npm ci: %v):\n%s", err, out)
			}
			t.Fatalf("npm ci in %s: %v\n%s", dir, err, out)
		}
	}

	vectors, err := filepath.Abs(vectorsFile)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	check := exec.CommandContext(ctx, node, "crosscheck.mjs", vectors)
	check.Dir = dir
	out, err := check.CombinedOutput()
	t.Logf("node crosscheck.mjs:\n%s", out)
	require.NoError(t, err, "OpenZeppelin or ethers disagrees with the Go payout package:\n%s", out)
}

// lockedInstalled reports whether node_modules holds each package at the
// version package-lock.json pins.
func lockedInstalled(t *testing.T, dir string, pkgs ...string) bool {
	t.Helper()
	var lock struct {
		Packages map[string]struct {
			Version string `json:"version"`
		} `json:"packages"`
	}
	raw, err := os.ReadFile(filepath.Join(dir, "package-lock.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &lock))
	for _, p := range pkgs {
		locked, ok := lock.Packages["node_modules/"+p]
		require.True(t, ok, "%s is not in package-lock.json", p)
		var installed struct {
			Version string `json:"version"`
		}
		raw, err := os.ReadFile(filepath.Join(dir, "node_modules", p, "package.json"))
		if err != nil || json.Unmarshal(raw, &installed) != nil || installed.Version != locked.Version {
			return false
		}
	}
	return true
}

// npmNetworkErrorRE matches how npm reports a registry it cannot reach:
// its "network" error class and the system errors behind it.
var npmNetworkErrorRE = regexp.MustCompile(`(?m)^npm (?:ERR!|error) network |` +
	`\b(?:ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH|ENETDOWN|ESOCKETTIMEDOUT|ERR_SOCKET_TIMEOUT)\b`)

func npmNetworkError(out []byte) bool {
	return npmNetworkErrorRE.Match(out)
}
