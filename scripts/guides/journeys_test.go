package guides_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/scripts/guides"
	"github.com/idlegpu/idlegpu/scripts/harness"
	"github.com/idlegpu/idlegpu/scripts/harness/harnesstest"
)

// bins are the binaries under test, built by TestMain.
var bins harness.Binaries

// root is the repository root.
var root, _ = filepath.Abs("../..")

func TestMain(m *testing.M) {
	flag.Parse()
	dir, err := os.MkdirTemp("", "guides")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if !testing.Short() {
		if bins, err = harnesstest.Build(root, dir); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// image is what the guides' $IMAGE stands for: the renter's image pinned by
// digest. The agents here run jobs with the process runner, which does not
// pull it.
const image = "ghcr.io/acme/train@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

// devChain is the development chain the guides' tested blocks start from,
// as `make node` makes it (alice funded in its home's test keyring), with
// 20 s epochs so a lease proves within the test.
func devChain(t *testing.T) *harness.Chain {
	return harness.NewChain(t, bins, root, harness.GenesisEdits{
		"settlement": {"epoch_seconds": "20", "sample_interval_seconds": "1", "min_samples_ratio_bps": 7000, "proof_grace_seconds": "30"},
	})
}

// runJourney runs a journey's blocks in one bash, as a newcomer pasting
// them would: a fresh HOME and working directory (with docs/ at hand, as
// in a checkout), the built programs first on PATH, and the variables the
// guides name for the chain set to this one's. It returns the output.
func runJourney(t *testing.T, blocks []guides.Block, c *harness.Chain, extra ...string) (out, home string) {
	t.Helper()
	work := t.TempDir()
	home = t.TempDir()
	require.NoError(t, os.Symlink(filepath.Join(root, "docs"), filepath.Join(work, "docs")))
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	env := append([]string{
		"HOME=" + home,
		"PATH=" + filepath.Dir(bins.Idlegpud) + string(os.PathListSeparator) + os.Getenv("PATH"),
		"NODE=" + c.RPC, "CHAIN_ID=" + c.ChainID, "NODE_HOME=" + c.Home, "IMAGE=" + image}, extra...)
	out, stop, err := guides.Run(ctx, blocks, work, env)
	t.Cleanup(stop)
	if err != nil {
		t.Fatalf("%v; output (tail):\n%s", err, harness.Tail(out, 40))
	}
	return out, home
}

// keyAddress is the address of a test-keyring key a journey made under
// its HOME, where idlegpud (or the agent) keeps it by default.
func keyAddress(t *testing.T, home, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(bins.Idlegpud, append([]string{"keys", "show", name, "-a", "--keyring-backend", "test"}, args...)...)
	cmd.Env = append(os.Environ(), "HOME="+home)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	return strings.TrimSpace(string(out))
}

func TestJourneysHaveBlocks(t *testing.T) {
	for name, files := range map[string][]string{
		"renter":   {"docs/renters.md"},
		"provider": {"docs/providers.md"},
		// Run by scripts/networktest, which has a network to join.
		"validator": {"docs/operators.md"},
	} {
		for i := range files {
			files[i] = filepath.Join(root, files[i])
		}
		_, err := guides.Journey(name, files...)
		require.NoError(t, err, name)
	}
	// No mark anywhere else names a journey nobody runs.
	docs, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	for _, f := range append(docs, filepath.Join(root, "README.md")) {
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		blocks, err := guides.Parse(f, src)
		require.NoError(t, err)
		for _, b := range blocks {
			require.Contains(t, []string{"renter", "provider", "validator"}, b.Journey, "%s:%d", b.File, b.Line)
		}
	}
}

// TestRenterJourney runs every tested block of docs/renters.md, in order,
// against a development chain where one provider's agent (simulated GPUs)
// offers: a renter by CLI and a renter with an Ethereum wallet. Then it
// checks the story the guide tells happened on chain: each job cleared, its
// lease started and was proven, and everything not paid to the provider
// (or to the relayer) came back to its renter.
func TestRenterJourney(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a chain and an agent (minutes)")
	}
	blocks, err := guides.Journey("renter", filepath.Join(root, "docs", "renters.md"))
	require.NoError(t, err)
	c := devChain(t)
	a := harness.NewAgent(t, c, bins, harness.AgentOptions{GPUs: 2, Seed: 11})
	defer func() {
		if t.Failed() {
			t.Logf("agent output (tail):\n%s", harness.Tail(a.Output(), 40))
		}
	}()
	c.Tx("alice", "bank", "send", "alice", a.Addr, "500000000ugpu")
	a.CLI("register", "--region", "eu-de-fra1", "--endpoint", a.Endpoint, "--bond", "200000000ugpu", "--moniker", "guide rack")
	a.Start()
	harness.WaitFor(t, 60*time.Second, "the agent's offer", func() bool {
		var offers struct {
			Offers []struct {
				Status string `json:"status"`
			} `json:"offers"`
		}
		c.Query(&offers, "offer", "provider-offers", a.Addr)
		return len(offers.Offers) == 1 && offers.Offers[0].Status == "OFFER_STATUS_OPEN"
	})

	out, home := runJourney(t, blocks, c)
	require.Contains(t, out, "manifest accepted for lease 1")

	// The guide closed its lease: it ends once its last epoch is settled,
	// and the renter has back all the provider was not paid.
	renter := keyAddress(t, home, "renter")
	l := c.WaitLease(1, "LEASE_STATUS_CLOSED", 90*time.Second)
	require.False(t, l.Start.IsZero(), "the lease started")
	require.Positive(t, l.Paid.Int(), "the provider was paid for proven time")

	// The wallet's job (lease 2), signed with an Ethereum key and relayed
	// by the renter's key, closed by a signed close: the wallet's 5 USDC
	// less exactly what the provider was paid and the two relayer fees,
	// which the relayer received.
	w := c.WaitLease(2, "LEASE_STATUS_CLOSED", 90*time.Second)
	require.False(t, w.Start.IsZero(), "the wallet's lease started")
	var wl struct {
		Lease struct {
			Renter string `json:"renter"`
		} `json:"lease"`
	}
	c.Query(&wl, "auction", "lease", "2")
	require.NotEqual(t, renter, wl.Lease.Renter)
	const relayerFees = 50_000 + 20_000
	require.Equal(t, int64(5_000_000)-w.Paid.Int()-relayerFees, c.Balance(wl.Lease.Renter, "uusdc"))
	require.Equal(t, int64(50_000_000)-l.Paid.Int()+relayerFees, c.Balance(renter, "uusdc"),
		"the renter's 50 USDC less exactly what was paid, plus the fees it earned relaying the wallet's bids")
}

// TestProviderJourney runs every tested block of docs/providers.md, in
// order, on a development chain: init with simulated GPUs, funding,
// register and bond, the agent running until its offer opens, doctor,
// pause, resume, drain and leave, status and metrics. Then it checks that
// leave did what the guide says: the offers closed, the GPUs deregistered
// and the stake unbonding.
func TestProviderJourney(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a chain and an agent (minutes)")
	}
	blocks, err := guides.Journey("provider", filepath.Join(root, "docs", "providers.md"))
	require.NoError(t, err)
	c := devChain(t)
	out, home := runJourney(t, blocks, c)
	require.Contains(t, out, "OFFER_STATUS_OPEN", "the offer was in the market")

	agent := keyAddress(t, home, "agent", "--keyring-dir", filepath.Join(home, ".idlegpu-agent"))
	var offers struct {
		Offers []struct {
			Status string `json:"status"`
		} `json:"offers"`
	}
	c.Query(&offers, "offer", "provider-offers", agent)
	for _, o := range offers.Offers {
		require.Equal(t, "OFFER_STATUS_CLOSED", o.Status)
	}
	var p struct {
		Provider struct {
			Status string   `json:"status"`
			GPUs   []string `json:"gpu_uuids"`
		} `json:"provider"`
	}
	c.Query(&p, "provider", "provider", agent)
	require.Equal(t, "PROVIDER_STATUS_INACTIVE", p.Provider.Status, "leave unbonded the provider with no GPU left")
	require.Empty(t, p.Provider.GPUs, "leave deregistered the GPUs")
}
