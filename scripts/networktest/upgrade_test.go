package networktest_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/app"
	"github.com/idlegpu/idlegpu/scripts/harness"
)

// TestCosmovisorUpgrade runs the chain's upgrade path as operators run it
// (docs/operators.md, "Upgrades"): cosmovisor starts the previous release
// (this tree built without its newest upgrade handler, tag
// previous_release), governance passes a software-upgrade plan naming that
// upgrade, the node halts at the plan's height asking for it, cosmovisor
// backs up the data and switches to the binary in upgrades/<name>/bin,
// which applies the handler, and blocks resume.
func TestCosmovisorUpgrade(t *testing.T) {
	current := idlegpud(t)
	previous, cosmovisor := os.Getenv("IDLEGPU_PREVIOUS_IDLEGPUD"), os.Getenv("IDLEGPU_COSMOVISOR")
	if previous == "" || cosmovisor == "" {
		t.Skip("IDLEGPU_PREVIOUS_IDLEGPUD and IDLEGPU_COSMOVISOR are not set: `make test-network` builds both")
	}
	name := app.Upgrades[len(app.Upgrades)-1].Name

	// The chain is made by the release it starts on.
	home := t.TempDir()
	setup := exec.Command(filepath.Join(root, "scripts", "node.sh"))
	setup.Env = append(os.Environ(), "IDLEGPUD="+previous, "NODE_HOME="+home, "NODE_SETUP_ONLY=1")
	out, err := setup.CombinedOutput()
	require.NoError(t, err, "node.sh: %s", out)
	shortVoting(t, filepath.Join(home, "config", "genesis.json"))

	// cosmovisor's layout in the home: genesis/bin the binary it starts
	// with, upgrades/<name>/bin the one the plan switches to.
	env := []string{"DAEMON_NAME=idlegpud", "DAEMON_HOME=" + home, "DAEMON_RESTART_AFTER_UPGRADE=true", "DAEMON_POLL_INTERVAL=300ms"}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	run(t, nil, cosmovisor, "init", previous)
	run(t, nil, cosmovisor, "add-upgrade", name, current)
	require.FileExists(t, filepath.Join(home, "cosmovisor", "upgrades", name, "bin", "idlegpud"))

	p := harness.FreePorts(t, 5)
	rpc := fmt.Sprintf("tcp://127.0.0.1:%d", p[0])
	c := harness.Connect(t, harness.Binaries{Idlegpud: current}, home, rpc, "idlegpu-local")
	// cosmovisor forwards SIGTERM to the node it runs; the cleanup signals
	// both, so a node it restarted at the upgrade stops whatever the
	// forwarding does (it once missed it, and the test hung 30 s).
	c.Node = harness.StartGroup(t, cosmovisor, "run", "start", "--home", home, "--log_no_color", "--rpc.laddr", rpc,
		"--p2p.laddr", fmt.Sprintf("tcp://127.0.0.1:%d", p[1]), "--grpc.address", fmt.Sprintf("127.0.0.1:%d", p[2]),
		"--api.address", fmt.Sprintf("tcp://127.0.0.1:%d", p[3]), "--rpc.pprof_laddr", fmt.Sprintf("127.0.0.1:%d", p[4]))
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("cosmovisor and node log (tail):\n%s", harness.Tail(c.Node.Output(), 40))
		}
		c.Node.Stop(t, syscall.SIGTERM)
	})
	c.WaitHeight(3, 90*time.Second)

	// The plan: far enough ahead for the vote (voting period 4 s at 1 s blocks).
	height := c.Height() + 12
	c.Tx("alice", "upgrade", "software-upgrade", name, "--upgrade-height", strconv.FormatInt(height, 10),
		"--title", "Upgrade to "+name, "--summary", "The newest upgrade handler", "--deposit", "10000000ugpu", "--no-validate")
	var proposals struct {
		Proposals []struct {
			ID string `json:"id"`
		} `json:"proposals"`
	}
	c.Query(&proposals, "gov", "proposals")
	require.NotEmpty(t, proposals.Proposals)
	id := proposals.Proposals[len(proposals.Proposals)-1].ID
	c.Tx("validator", "gov", "vote", id, "yes")
	harness.WaitFor(t, 30*time.Second, "proposal "+id+" to pass", func() bool {
		var p struct {
			Proposal struct {
				Status string `json:"status"`
			} `json:"proposal"`
		}
		return c.TryQuery(&p, "gov", "proposal", id) && p.Proposal.Status == "PROPOSAL_STATUS_PASSED"
	})

	// The previous release halts at the height; the current one resumes.
	c.WaitHeight(height+3, 90*time.Second)
	logs := c.Node.Output()
	require.Contains(t, logs, fmt.Sprintf(`UPGRADE "%s" NEEDED at height: %d`, name, height), "the previous release halted for the plan")
	var applied struct {
		Height string `json:"height"`
	}
	c.Query(&applied, "upgrade", "applied", name)
	require.Equal(t, strconv.FormatInt(height, 10), applied.Height, "the current release applied the handler at the plan's height")
	current0, err := os.Readlink(filepath.Join(home, "cosmovisor", "current"))
	require.NoError(t, err)
	require.Equal(t, filepath.Join(home, "cosmovisor", "upgrades", name), current0, "cosmovisor's current binary")
	backups, err := filepath.Glob(filepath.Join(home, "data-backup-*"))
	require.NoError(t, err)
	require.Len(t, backups, 1, "cosmovisor backed the data up before switching")
}

// shortVoting makes governance vote in seconds and take alice's deposit.
func shortVoting(t *testing.T, path string) {
	t.Helper()
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	var doc map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // amounts stay as written
	require.NoError(t, dec.Decode(&doc))
	gov := doc["app_state"].(map[string]any)["gov"].(map[string]any)["params"].(map[string]any)
	gov["voting_period"], gov["expedited_voting_period"] = "4s", "3s"
	raw, err = json.MarshalIndent(doc, "", "  ")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, raw, 0o600))
}
