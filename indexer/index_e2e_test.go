package indexer_test

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/scripts/pgtest"

	"github.com/idlegpu/idlegpu/agent/config"
	"github.com/idlegpu/idlegpu/indexer"
	"github.com/idlegpu/idlegpu/scripts/harness"
	"github.com/idlegpu/idlegpu/scripts/harness/harnesstest"
)

const e2eImage = "registry.example/idlegpu/e2e@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

// repoRoot is the repository root (scripts/node.sh makes the chain's home).
var repoRoot, _ = filepath.Abs("..")

// binaries builds idlegpud and idlegpu-agent once, for the e2e tests only
// (the unit tests need no binaries).
var binaries = sync.OnceValues(func() (harness.Binaries, error) {
	dir, err := os.MkdirTemp("", "index-e2e")
	if err != nil {
		return harness.Binaries{}, err
	}
	buildDir = dir
	return harnesstest.Build(repoRoot, dir)
})

// buildDir holds the binaries; TestMain removes it (hundreds of MB) so a
// long CI run does not fill the disk.
var buildDir string

func TestMain(m *testing.M) {
	code := m.Run()
	pgtest.Stop()
	if buildDir != "" {
		_ = os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// runIndexer runs ix.Run until the returned stop is called; stop waits for
// Run to return and fails the test if it returned an error.
func runIndexer(t *testing.T, ix *indexer.Indexer) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- ix.Run(ctx) }()
	return func() {
		cancel()
		require.NoError(t, <-done)
	}
}

func newIndexer(t *testing.T, db *indexer.DB, rpc string) *indexer.Indexer {
	t.Helper()
	ix, err := indexer.New(db, rpc, slog.New(slog.NewTextHandler(t.Output(), nil)))
	require.NoError(t, err)
	return ix
}

// TestReplayAndRestartGiveTheSameIndex runs a provider's agent through a
// 2-GPU lease (two epochs proven and paid, rewards claimed) on a real node
// that restarts midway, with an indexer following it all along. Then the
// chain is indexed again from genesis in one go (A), and in pieces with a
// close and reopen of the database and a Run cancelled midway (B): all
// three databases are equal, row for row, and hold what the chain reports;
// so is a fourth on PostgreSQL (P), indexed from genesis.
func TestReplayAndRestartGiveTheSameIndex(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a chain and an agent (minutes)")
	}
	bins, err := binaries()
	require.NoError(t, err)
	ctx := context.Background()
	c := harness.NewChain(t, bins, repoRoot, harness.GenesisEdits{
		"settlement": {"epoch_seconds": "20", "sample_interval_seconds": "1", "min_samples_ratio_bps": 7000, "proof_grace_seconds": "30",
			"halt_gap_seconds": "10"},
	})
	a := harness.NewAgent(t, c, bins, harness.AgentOptions{GPUs: 2, Seed: 7, Edit: func(cfg *config.Config) {
		cfg.Rewards.ClaimEvery = "5s"
	}})
	defer func() {
		if t.Failed() {
			t.Logf("agent output (tail):\n%s", harness.Tail(a.Output(), 40))
			t.Logf("node output (tail):\n%s", harness.Tail(c.Node.Output(), 20))
		}
	}()

	// C follows the chain from the start, through the node's restart.
	dbC := openDB(t)
	stopC := runIndexer(t, newIndexer(t, dbC, c.RPC))

	c.Tx("alice", "bank", "send", "alice", a.Addr, "500000000ugpu")
	a.CLI("register", "--region", "eu-de-fra1", "--endpoint", a.Endpoint, "--bond", "200000000ugpu", "--moniker", "index e2e")
	a.Start()
	var offers struct {
		Offers []struct {
			Status string `json:"status"`
		} `json:"offers"`
	}
	harness.WaitFor(t, 60*time.Second, "the agent's offer", func() bool {
		c.Query(&offers, "offer", "provider-offers", a.Addr)
		return len(offers.Offers) == 1 && offers.Offers[0].Status == "OFFER_STATUS_OPEN"
	})

	manifest := filepath.Join(t.TempDir(), "manifest.json")
	require.NoError(t, os.WriteFile(manifest, []byte(`{"command":["sh","-c","while :; do sleep 1; done"]}`), 0o600))
	c.Tx("alice", "auction", "post-job", "--gpus", "2", "--model", model, "--min-memory", "80GB", "--region", "eu", "--tier", "bronze",
		"--duration", "40s", "--max-price", "1usdc/gpu-h", "--bid-window", "0", "--image", e2eImage, "--manifest", manifest,
		"--workload", "training")
	c.CLI("lease", "send-manifest", "1", manifest, "--from", "alice")
	c.WaitLease(1, "LEASE_STATUS_ACTIVE", 30*time.Second)
	time.Sleep(8 * time.Second)
	c.Node.Stop(t, syscall.SIGTERM)
	time.Sleep(4 * time.Second)
	c.Start()
	chainLease := c.WaitLease(1, "LEASE_STATUS_COMPLETED", 120*time.Second)

	var sp struct {
		Params struct {
			TakeRateBps uint32 `json:"take_rate_bps"`
		} `json:"params"`
	}
	c.Query(&sp, "settlement", "params")
	paid := chainLease.Paid.Int()
	earned := paid - paid*int64(sp.Params.TakeRateBps)/10_000
	harness.WaitFor(t, 30*time.Second, "rewards claimed", func() bool { return c.Balance(a.Addr, "uusdc") == earned })
	h := c.Height()
	t.Logf("chain at %d; lease 1 paid %d, provider earned %d", h, paid, earned)

	// C must reach h across the restart; then stop it where it is.
	wctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	require.NoError(t, newIndexer(t, dbC, c.RPC).WaitFor(wctx, h))
	cancel()
	stopC()

	// A: from genesis in one go.
	dbA := openDB(t)
	require.NoError(t, newIndexer(t, dbA, c.RPC).SyncTo(ctx, h))
	// P: the same into PostgreSQL.
	dbP := openPostgres(t)
	require.NoError(t, newIndexer(t, dbP, c.RPC).SyncTo(ctx, h))

	// B: half, close, reopen, Run cancelled midway, then the rest.
	pathB := filepath.Join(t.TempDir(), "b.db")
	dbB, err := indexer.Open(pathB)
	require.NoError(t, err)
	require.NoError(t, newIndexer(t, dbB, c.RPC).SyncTo(ctx, h/2))
	require.NoError(t, dbB.Close())
	dbB, err = indexer.Open(pathB)
	require.NoError(t, err)
	t.Cleanup(func() { _ = dbB.Close() })
	ixB := newIndexer(t, dbB, c.RPC)
	stopB := runIndexer(t, ixB)
	wctx, cancel = context.WithTimeout(ctx, 60*time.Second)
	require.NoError(t, ixB.WaitFor(wctx, h/2+(h-h/2)/2))
	cancel()
	stopB()

	// All three to the same height, then row for row equal.
	final := h
	for _, db := range []*indexer.DB{dbA, dbB, dbC} {
		cur, err := db.Cursor(ctx)
		require.NoError(t, err)
		final = max(final, cur)
	}
	for _, db := range []*indexer.DB{dbA, dbB, dbC, dbP} {
		require.NoError(t, newIndexer(t, db, c.RPC).SyncTo(ctx, final))
	}
	want := dump(t, dbA)
	require.Equal(t, want, dump(t, dbP), "the same chain indexed into PostgreSQL")
	require.Equal(t, want, dump(t, dbB), "indexed in pieces with a reopen and a cancelled Run")
	require.Equal(t, want, dump(t, dbC), "followed live through a node restart")
	require.Equal(t, int(final), count(t, dbA, "blocks"))

	// What the chain reports, to the unit.
	lease, err := dbA.Lease(ctx, 1)
	require.NoError(t, err)
	require.Equal(t, "completed", lease.Status)
	require.Equal(t, a.Addr, lease.Provider)
	require.Equal(t, model, lease.Model)
	require.Equal(t, chainLease.GPUs, lease.GPUUUIDs)
	require.Equal(t, chainLease.Price.Int(), lease.Price)
	require.Equal(t, paid, lease.Paid)
	require.Equal(t, chainLease.Escrow.Int(), lease.Escrow)

	var chainJob struct {
		Job struct {
			Status        string       `json:"status"`
			ClearingPrice harness.Coin `json:"clearing_price"`
		} `json:"job"`
	}
	c.Query(&chainJob, "auction", "job", "1")
	job, err := dbA.Job(ctx, 1)
	require.NoError(t, err)
	require.Equal(t, chainJob.Job.ClearingPrice.Int(), job.ClearingPrice)
	require.Equal(t, "completed", job.Status)
	require.Equal(t, "JOB_STATUS_"+strings.ToUpper(job.Status), chainJob.Job.Status)
	prices, err := dbA.PriceHistory(ctx, model, time.Time{}, 0, 0)
	require.NoError(t, err)
	require.Len(t, prices, 1)
	require.Equal(t, job.ClearingPrice, prices[0].Price)
	require.EqualValues(t, 2, prices[0].GPUs)

	var prog struct {
		Progress struct {
			ProvenEpochs string `json:"proven_epochs"`
		} `json:"progress"`
	}
	c.Query(&prog, "settlement", "progress", "1")
	epochs, err := dbA.Epochs(ctx, 1, 0, 0)
	require.NoError(t, err)
	require.Equal(t, prog.Progress.ProvenEpochs, strconv.Itoa(len(epochs)))
	var sumPaid, sumFee int64
	for i, e := range epochs {
		require.EqualValues(t, i, e.Epoch)
		require.Equal(t, "proven", e.Status)
		sumPaid += e.Paid
		sumFee += e.Fee
		require.Len(t, e.GPUs, 2, "epoch %d", i)
		var uuids []string
		for _, g := range e.GPUs {
			uuids = append(uuids, g.UUID)
			require.GreaterOrEqual(t, g.Samples, uint32(14), "70%% of 20 one-second samples")
			require.Positive(t, g.EnergyMJ)
		}
		require.ElementsMatch(t, lease.GPUUUIDs, uuids)
	}
	require.Equal(t, paid, sumPaid)
	require.Equal(t, earned, sumPaid-sumFee)

	earnings, err := dbA.Earnings(ctx, a.Addr, 24*time.Hour, time.Time{})
	require.NoError(t, err)
	var net int64
	for _, e := range earnings {
		net += e.Net
	}
	require.Equal(t, earned, net)
	claims, err := dbA.Claims(ctx, a.Addr, 0, 0)
	require.NoError(t, err)
	var claimed int64
	for _, cl := range claims {
		if cl.Denom == "uusdc" {
			claimed += cl.Amount
		}
	}
	require.Equal(t, c.Balance(a.Addr, "uusdc"), claimed)

	var rep struct {
		Reputation struct {
			Reliability uint32 `json:"reliability_bps"`
			Proven      string `json:"proven_epochs"`
			Completed   string `json:"leases_completed"`
		} `json:"reputation"`
	}
	c.Query(&rep, "provider", "provider", a.Addr)
	reps, err := dbA.Reliability(ctx, a.Addr, 1, 0)
	require.NoError(t, err)
	require.Len(t, reps, 1)
	require.Equal(t, rep.Reputation.Reliability, reps[0].ReliabilityBps)
	require.Equal(t, rep.Reputation.Proven, strconv.FormatUint(reps[0].Proven, 10))
	require.Equal(t, rep.Reputation.Completed, strconv.FormatUint(reps[0].LeasesCompleted, 10))
}
