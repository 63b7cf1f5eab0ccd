package networktest_test

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/scripts/harness"
)

// root is the repository root (scripts/testnet.sh, scripts/node.sh).
var root, _ = filepath.Abs("../..")

// idlegpud is the node `make build` made, in $IDLEGPU_BUILD. Without the
// variable the test skips: `make test-network` builds what these tests run
// (a second idlegpud and cosmovisor beside the first) and sets it.
func idlegpud(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("starts validators (minutes)")
	}
	dir := os.Getenv("IDLEGPU_BUILD")
	if dir == "" {
		t.Skip("IDLEGPU_BUILD is not set: `make test-network` builds the binaries and runs these tests")
	}
	bin := filepath.Join(dir, "idlegpud")
	require.FileExists(t, bin, "IDLEGPU_BUILD names %s", dir)
	return bin
}

// portBase is the first of n·10 consecutive loopback ports that are free
// now, as scripts/testnet.sh lays a loopback network out (10 a node).
func portBase(t *testing.T, n int) int {
	t.Helper()
	for base := 30000 + os.Getpid()%200*100; base < 60000; base += 1000 {
		free := true
		for p := base; p < base+n*10 && free; p++ {
			l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
			if err != nil {
				free = false
				break
			}
			_ = l.Close()
		}
		if free {
			return base
		}
	}
	t.Fatalf("no %d free consecutive ports on loopback", n*10)
	return 0
}

// run runs bin with stdin closed (as a service has none) and returns its
// stdout, failing t with everything it printed if it fails.
func run(t *testing.T, env []string, bin string, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "%s %s:\n%s%s", filepath.Base(bin), strings.Join(args, " "), out, stderr.String())
	return string(out)
}

// blockSigners is how many validators signed the commit of block h-1 that
// block h carries, read from a node's RPC.
func blockSigners(t *testing.T, c *harness.Chain, h int64) int {
	t.Helper()
	var b struct {
		LastCommit struct {
			Signatures []struct {
				Flag string `json:"block_id_flag"`
			} `json:"signatures"`
		} `json:"last_commit"`
	}
	require.NoError(t, json.Unmarshal(c.CLI("q", "block", "--type=height", strconv.FormatInt(h, 10), "-o", "json"), &b))
	n := 0
	for _, s := range b.LastCommit.Signatures {
		if s.Flag == "BLOCK_ID_FLAG_COMMIT" {
			n++
		}
	}
	return n
}

// waitSigners waits for a block after the node's current height whose
// commit every one of want validators signed.
func waitSigners(t *testing.T, c *harness.Chain, want int, timeout time.Duration) int64 {
	t.Helper()
	var at int64
	from := c.Height() + 1
	harness.WaitFor(t, timeout, fmt.Sprintf("a block signed by %d validators", want), func() bool {
		h := c.Height()
		for ; from <= h; from++ {
			if from > 1 && blockSigners(t, c, from) == want {
				at = from
				return true
			}
		}
		return false
	})
	return at
}
