package indexer_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/cosmos/gogoproto/proto"
	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/scripts/pgtest"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/indexer"
	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
	offertypes "github.com/idlegpu/idlegpu/x/offer/types"
	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
	settlementtypes "github.com/idlegpu/idlegpu/x/settlement/types"
)

const (
	provider = "idle1provider"
	renter   = "idle1renter"
	relayer  = "idle1relayer"
	auditor  = "idle1auditor"
	model    = "NVIDIA H100 80GB HBM3"
)

// t0 is the first fixture block's time.
var t0 = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

func usdc(n int64) sdk.Coin { return sdk.NewInt64Coin("uusdc", n) }

func openDB(t *testing.T) *indexer.DB {
	t.Helper()
	return openTarget(t, filepath.Join(t.TempDir(), "index.db"))
}

// openPostgres opens the index on a new database of the test binary's
// PostgreSQL cluster (scripts/pgtest).
func openPostgres(t *testing.T) *indexer.DB {
	t.Helper()
	return openTarget(t, pgtest.DSN(t))
}

func openTarget(t *testing.T, target string) *indexer.DB {
	t.Helper()
	db, err := indexer.Open(target)
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// onEachDatabase runs a test on the index over SQLite and over PostgreSQL:
// the same migrations and queries must give the same rows on both.
func onEachDatabase(t *testing.T, test func(t *testing.T, open func(*testing.T) *indexer.DB)) {
	t.Run("sqlite", func(t *testing.T) { test(t, openDB) })
	t.Run("postgres", func(t *testing.T) { test(t, openPostgres) })
}

func gpuSummary(uuid string, util uint32) settlementtypes.GPUSummary {
	return settlementtypes.GPUSummary{Uuid: uuid, Samples: 20, UtilAvgBps: util, UtilMinBps: util - 500, MemUsedMaxMib: 40_000,
		EnergyMj: 6_000_000, PowerAvgMw: 300_000, TempMaxC: 71, SmClockAvgMhz: 1_800, XidErrors: 0}
}

// fixture is a lease's life in six blocks: an offer and a relayed job,
// the clearing (with a job-level refund of the surplus), the start, one
// proven epoch (and a failed tx that must not count), a missed epoch with
// a liveness slash that fails the lease, and a claim, an audit and the
// offer's close.
func fixture() []indexer.BlockData {
	at := func(h int64) time.Time { return t0.Add(time.Duration(h-1) * 6 * time.Second) }
	offer := offertypes.Offer{Id: 1, Provider: provider, GpuUuids: []string{"GPU-a", "GPU-b"}, Model: model, MemoryMib: 81_559,
		Region: "eu-de-fra1", Status: offertypes.OFFER_STATUS_OPEN,
		Terms: offertypes.OfferTerms{PriceOnDemand: &sdk.Coin{Denom: "uusdc", Amount: usdc(2_000_000).Amount},
			PricePreemptible: &sdk.Coin{Denom: "uusdc", Amount: usdc(900_000).Amount}, Lanes: 3}}
	job := auctiontypes.Job{Id: 1, Renter: renter, Status: auctiontypes.JOB_STATUS_OPEN, Deposit: usdc(6_000_000), CreatedAt: at(1),
		Spec: auctiontypes.JobSpec{Image: "img@sha256:00", GpuCount: 2, Models: []string{model}, Regions: []string{"eu"},
			Tier: auctiontypes.TIER_BRONZE, Preemptible: true, DurationSeconds: 3600, MaxPrice: usdc(3_000_000)}}
	lease := auctiontypes.Lease{Id: 1, JobId: 1, Renter: renter, Provider: provider, OfferId: 1, GpuUuids: []string{"GPU-a", "GPU-b"},
		Price: usdc(900_000), Tier: auctiontypes.TIER_BRONZE, DurationSeconds: 3600, Escrow: usdc(1_800_000), Paid: usdc(0),
		Status: auctiontypes.LEASE_STATUS_PENDING, CreatedAt: at(2)}
	proof := settlementtypes.ExecutionProof{LeaseId: 1, Epoch: 0, Gpus: []settlementtypes.GPUSummary{
		gpuSummary("GPU-a", 9_100), gpuSummary("GPU-b", 8_700)}, SamplesRoot: []byte{0xab, 0xcd}}
	rep := func(bps uint32, proven, missed, failed uint64) *providertypes.EventReputationChanged {
		return &providertypes.EventReputationChanged{Provider: provider, Reputation: providertypes.Reputation{
			ReliabilityBps: bps, ProvenEpochs: proven, MissedEpochs: missed, LeasesFailed: failed}}
	}
	return []indexer.BlockData{
		{Height: 1, Time: at(1), Proposer: "AA", Txs: []indexer.TxData{
			{Hash: "T1", Events: []proto.Message{&offertypes.EventOfferCreated{Offer: offer}, rep(10_000, 0, 0, 0)}},
			{Hash: "T2", Events: []proto.Message{
				&auctiontypes.EventJobPosted{Job: job},
				&auctiontypes.EventSignedJobRelayed{JobId: 1, Renter: renter, Submitter: relayer, Nonce: 7, RelayerFee: usdc(10_000)},
			}},
		}},
		{Height: 2, Time: at(2), Proposer: "BB", End: []proto.Message{
			&auctiontypes.EventEscrowRefunded{JobId: 1, Renter: renter, Amount: usdc(4_200_000)},
			&auctiontypes.EventJobCleared{JobId: 1, ClearingPrice: usdc(900_000), LeaseIds: []uint64{1}, Candidates: 3,
				Leases: []auctiontypes.Lease{lease}},
		}},
		{Height: 3, Time: at(3), Proposer: "AA", Txs: []indexer.TxData{
			{Hash: "T3", Events: []proto.Message{&auctiontypes.EventLeaseStarted{LeaseId: 1, Provider: provider}}},
		}},
		{Height: 4, Time: at(4), Proposer: "BB", Txs: []indexer.TxData{
			{Hash: "T4", Msgs: []proto.Message{&settlementtypes.MsgSubmitProofs{Signer: provider, Provider: provider,
				Proofs: []settlementtypes.ExecutionProof{proof}}},
				Events: []proto.Message{
					&auctiontypes.EventLeasePaid{LeaseId: 1, Amount: usdc(5_000), Paid: usdc(5_000)},
					&settlementtypes.EventProofAccepted{LeaseId: 1, Epoch: 0, Provider: provider, Paid: usdc(5_000), Fee: usdc(50),
						SamplesRoot: []byte{0xab, 0xcd}},
					rep(10_000, 1, 0, 0),
				}},
			{Hash: "T5", Code: 11, Events: []proto.Message{
				&settlementtypes.EventProofAccepted{LeaseId: 1, Epoch: 9, Provider: provider, Paid: usdc(1), Fee: usdc(1)},
			}},
		}},
		{Height: 5, Time: at(5), Proposer: "AA", End: []proto.Message{
			&settlementtypes.EventEpochMissed{LeaseId: 1, Epoch: 1, Provider: provider, MissedInRow: 1},
			rep(9_844, 1, 1, 0),
			&providertypes.EventSlashed{Provider: provider, Reason: providertypes.SLASH_REASON_LIVENESS, FractionBps: 100,
				Slashed: sdk.NewInt64Coin("ugpu", 2_000_000), Burned: sdk.NewInt64Coin("ugpu", 2_000_000),
				Reward: sdk.NewInt64Coin("ugpu", 0)},
			&providertypes.EventJailed{Provider: provider, JailedUntil: at(5).Add(time.Hour)},
			&auctiontypes.EventEscrowRefunded{JobId: 1, LeaseId: 1, Renter: renter, Amount: usdc(1_795_000)},
			rep(9_844, 1, 1, 1),
			&auctiontypes.EventLeaseEnded{LeaseId: 1, Status: auctiontypes.LEASE_STATUS_FAILED, Reason: "missed proofs",
				Paid: usdc(5_000), JobId: 1, JobStatus: auctiontypes.JOB_STATUS_FAILED},
		}},
		{Height: 6, Time: at(6), Proposer: "BB", Txs: []indexer.TxData{
			{Hash: "T6", Events: []proto.Message{
				&settlementtypes.EventRewardsClaimed{Operator: provider, Claimed: sdk.NewCoins(usdc(4_950), sdk.NewInt64Coin("ugpu", 3))},
				&settlementtypes.EventAuditOpened{AuditId: 4, Requester: auditor, Provider: provider, GpuUuid: "GPU-a",
					Workload: "idlegpu/memwalk/v1", Shape: settlementtypes.AuditShape{TableItems: 16384, Lanes: 2, Segments: 1, SegmentSteps: 5},
					Deadline: at(6).Add(time.Minute), Fee: usdc(100_000)},
				&settlementtypes.EventAuditAnswered{AuditId: 4},
				&settlementtypes.EventAuditResolved{AuditId: 4, Status: settlementtypes.AUDIT_STATUS_CORRECT, Provider: provider,
					Requester: auditor, FeePaidTo: provider, Slashed: usdc(0)},
				&offertypes.EventOfferClosed{OfferId: 1, Provider: provider},
				&offertypes.EventOfferRemoved{OfferId: 1},
			}},
		}},
	}
}

func indexAll(t *testing.T, db *indexer.DB, blocks []indexer.BlockData) {
	t.Helper()
	for _, b := range blocks {
		require.NoError(t, db.IndexBlock(context.Background(), b))
	}
}

func TestIndexBlockRows(t *testing.T) { onEachDatabase(t, testIndexBlockRows) }

func testIndexBlockRows(t *testing.T, openDB func(*testing.T) *indexer.DB) {
	ctx := context.Background()
	db := openDB(t)
	indexAll(t, db, fixture())
	at := func(h int64) time.Time { return t0.Add(time.Duration(h-1) * 6 * time.Second) }

	cur, err := db.Cursor(ctx)
	require.NoError(t, err)
	require.EqualValues(t, 6, cur)

	blocks, err := db.Blocks(ctx, 2, 1)
	require.NoError(t, err)
	require.Equal(t, []indexer.Block{
		{Height: 5, Time: at(5), Proposer: "AA", Txs: 0, Events: 7},
		{Height: 4, Time: at(4), Proposer: "BB", Txs: 2, Events: 3},
	}, blocks, "a failed tx counts as a tx but not its events")

	job, err := db.Job(ctx, 1)
	require.NoError(t, err)
	require.Equal(t, indexer.Job{ID: 1, Renter: renter, Models: []string{model}, Regions: []string{"eu"}, Tier: "bronze",
		Preemptible: true, GPUCount: 2, DurationSeconds: 3600, Image: "img@sha256:00", Denom: "uusdc", MaxPrice: 3_000_000,
		Deposit: 6_000_000, Status: "failed", CreatedHeight: 1, CreatedAt: at(1), ClearingPrice: 900_000, LeaseIDs: []uint64{1},
		Candidates: 3, ClearedHeight: 2, ClearedAt: at(2), EndedHeight: 5, EndedAt: at(5), Refunded: 4_200_000 + 1_795_000,
		Submitter: relayer, RelayerFee: 10_000, RelayerFeeDenom: "uusdc"}, job)
	jobs, err := db.JobsOfRenter(ctx, renter, 10, 0)
	require.NoError(t, err)
	require.Equal(t, []indexer.Job{job}, jobs)
	_, err = db.Job(ctx, 2)
	require.ErrorIs(t, err, indexer.ErrNotFound)

	lease, err := db.Lease(ctx, 1)
	require.NoError(t, err)
	require.Equal(t, indexer.Lease{ID: 1, JobID: 1, Renter: renter, Provider: provider, OfferID: 1, Model: model, Region: "eu-de-fra1",
		GPUs: 2, GPUUUIDs: []string{"GPU-a", "GPU-b"}, Tier: "bronze", DurationSeconds: 3600, Denom: "uusdc", Price: 900_000,
		Escrow: 1_800_000, Paid: 5_000, Refunded: 1_795_000, Status: "failed", Reason: "missed proofs", Ended: true,
		CreatedHeight: 2, CreatedAt: at(2), StartedHeight: 3, StartedAt: at(3), EndedHeight: 5, EndedAt: at(5)}, lease)
	ended, live := true, false
	for _, f := range []indexer.LeaseFilter{{Renter: renter}, {Provider: provider}, {Provider: provider, Ended: &ended}, {Ended: &ended}} {
		ls, err := db.Leases(ctx, f)
		require.NoError(t, err)
		require.Equal(t, []indexer.Lease{lease}, ls, "%+v", f)
	}
	for _, f := range []indexer.LeaseFilter{{Provider: provider, Ended: &live}, {Renter: provider}, {Renter: renter, Offset: 1}} {
		ls, err := db.Leases(ctx, f)
		require.NoError(t, err)
		require.Empty(t, ls, "%+v", f)
	}

	epochs, err := db.Epochs(ctx, 1, 0, 0)
	require.NoError(t, err)
	require.Equal(t, []indexer.Epoch{
		{LeaseID: 1, Epoch: 0, Provider: provider, Status: "proven", Height: 4, Time: at(4), Denom: "uusdc", Paid: 5_000, Fee: 50,
			SamplesRoot: "abcd", GPUs: []indexer.EpochGPU{
				{UUID: "GPU-a", Samples: 20, UtilAvgBps: 9_100, UtilMinBps: 8_600, MemUsedMaxMiB: 40_000, EnergyMJ: 6_000_000,
					PowerAvgMW: 300_000, TempMaxC: 71, SMClockAvgMHz: 1_800},
				{UUID: "GPU-b", Samples: 20, UtilAvgBps: 8_700, UtilMinBps: 8_200, MemUsedMaxMiB: 40_000, EnergyMJ: 6_000_000,
					PowerAvgMW: 300_000, TempMaxC: 71, SMClockAvgMHz: 1_800},
			}},
		{LeaseID: 1, Epoch: 1, Provider: provider, Status: "missed", Height: 5, Time: at(5), MissedInRow: 1},
	}, epochs, "the failed tx's epoch 9 is not indexed")

	prices, err := db.PriceHistory(ctx, model, t0, 0, 0)
	require.NoError(t, err)
	require.Equal(t, []indexer.Clearing{{JobID: 1, Model: model, Height: 2, Time: at(2), Denom: "uusdc", Price: 900_000, GPUs: 2,
		DurationSeconds: 3600}}, prices)
	prices, err = db.PriceHistory(ctx, model, at(3), 0, 0)
	require.NoError(t, err)
	require.Empty(t, prices)
	models, err := db.Models(ctx)
	require.NoError(t, err)
	require.Equal(t, []indexer.Model{{Model: model, Clearings: 1, FirstHeight: 2, LastHeight: 2, LastDenom: "uusdc", LastPrice: 900_000}}, models)
	stats, err := db.MarketStats(ctx, t0)
	require.NoError(t, err)
	require.Equal(t, indexer.MarketStats{Since: t0, ClearedJobs: 1, GPUSeconds: 7200,
		Models: []indexer.ModelStats{{Model: model, Denom: "uusdc", Clearings: 1, GPUSeconds: 7200, MedianPrice: 900_000}}}, stats)
	require.InDelta(t, 2.0, stats.GPUHours(), 1e-9)

	reps, err := db.Reliability(ctx, provider, 10, 0)
	require.NoError(t, err)
	require.Equal(t, []indexer.Reputation{
		{Provider: provider, Height: 5, Time: at(5), ReliabilityBps: 9_844, Proven: 1, Missed: 1, LeasesFailed: 1},
		{Provider: provider, Height: 4, Time: at(4), ReliabilityBps: 10_000, Proven: 1},
		{Provider: provider, Height: 1, Time: at(1), ReliabilityBps: 10_000},
	}, reps, "one row per block, the block's last write")

	earnings, err := db.Earnings(ctx, provider, time.Hour, t0)
	require.NoError(t, err)
	require.Equal(t, []indexer.Earning{{Start: t0, Denom: "uusdc", Paid: 5_000, Fee: 50, Net: 4_950, Epochs: 1}}, earnings)
	_, err = db.Earnings(ctx, provider, time.Millisecond, t0)
	require.Error(t, err)

	slashes, err := db.Slashes(ctx, provider, 0, 0)
	require.NoError(t, err)
	require.Equal(t, []indexer.Slash{
		{Height: 5, Time: at(5), Kind: "jailed", Provider: provider, JailedUntil: at(5).Add(time.Hour)},
		{Height: 5, Time: at(5), Kind: "slashed", Provider: provider, Reason: "liveness", FractionBps: 100, Denom: "ugpu",
			Slashed: 2_000_000, Burned: 2_000_000},
	}, slashes)

	// Counts, a job's leases and the providers' records.
	n, err := db.CountLeases(ctx, indexer.LeaseFilter{Renter: renter, Before: 2, Limit: 1, Offset: 5})
	require.NoError(t, err)
	require.EqualValues(t, 1, n, "a count ignores the page")
	n, err = db.CountLeases(ctx, indexer.LeaseFilter{Provider: provider, Ended: &live})
	require.NoError(t, err)
	require.Zero(t, n)
	ofJob, err := db.LeasesOfJob(ctx, 1)
	require.NoError(t, err)
	require.Len(t, ofJob, 1)
	require.EqualValues(t, 1, ofJob[0].ID)
	records, err := db.ProviderRecords(ctx)
	require.NoError(t, err)
	require.Equal(t, indexer.ProviderRecord{Provider: provider, HasReputation: true, ReliabilityBps: 9_844, Proven: 1, AuditsPassed: 1},
		records[provider], "the latest reputation (height 5) and the one CORRECT audit")

	audits, err := db.Audits(ctx, provider, 0, 0)
	require.NoError(t, err)
	require.Equal(t, []indexer.Audit{{ID: 4, Provider: provider, Auditor: auditor, GPUUUID: "GPU-a", Workload: "idlegpu/memwalk/v1", WorkUnits: 10,
		Deadline: at(6).Add(time.Minute), Denom: "uusdc", Fee: 100_000, Status: "correct", OpenedHeight: 6, OpenedAt: at(6),
		AnsweredHeight: 6, ResolvedHeight: 6, ResolvedAt: at(6), FeePaidTo: provider}}, audits)

	claims, err := db.Claims(ctx, provider, 0, 0)
	require.NoError(t, err)
	require.Equal(t, []indexer.Claim{
		{Height: 6, Time: at(6), Operator: provider, Denom: "ugpu", Amount: 3},
		{Height: 6, Time: at(6), Operator: provider, Denom: "uusdc", Amount: 4_950},
	}, claims)

	var status string
	var closed, removed int64
	require.NoError(t, db.SQL().QueryRow(`SELECT status, closed_height, removed_height FROM offers WHERE id = 1`).Scan(&status, &closed, &removed))
	require.Equal(t, "closed", status)
	require.EqualValues(t, 6, closed)
	require.EqualValues(t, 6, removed)
}

func TestIndexBlockRefusesAGap(t *testing.T) { onEachDatabase(t, testIndexBlockRefusesAGap) }

func testIndexBlockRefusesAGap(t *testing.T, openDB func(*testing.T) *indexer.DB) {
	ctx := context.Background()
	db := openDB(t)
	blocks := fixture()
	indexAll(t, db, blocks[:3])
	before := dump(t, db)

	err := db.IndexBlock(ctx, blocks[4])
	var he *indexer.HeightError
	require.ErrorAs(t, err, &he)
	require.True(t, errors.Is(err, indexer.ErrHeight))
	require.Equal(t, indexer.HeightError{Cursor: 3, Height: 5}, *he)
	require.Equal(t, before, dump(t, db), "a refused block changes nothing")

	// Heights already indexed are skipped, even with other content.
	for _, b := range blocks[:3] {
		require.NoError(t, db.IndexBlock(ctx, b))
	}
	other := blocks[1]
	other.Proposer = "CC"
	require.NoError(t, db.IndexBlock(ctx, other))
	require.Equal(t, before, dump(t, db), "re-indexing is a no-op")

	indexAll(t, db, blocks[3:])
	whole := openDB(t)
	indexAll(t, whole, blocks)
	require.Equal(t, dump(t, whole), dump(t, db))
}

func TestIndexBlockIsAtomic(t *testing.T) { onEachDatabase(t, testIndexBlockIsAtomic) }

func testIndexBlockIsAtomic(t *testing.T, openDB func(*testing.T) *indexer.DB) {
	ctx := context.Background()
	db := openDB(t)
	blocks := fixture()
	indexAll(t, db, blocks[:1])
	before := dump(t, db)
	// A block whose second event cannot be written (a job posted twice)
	// leaves neither its first event nor the cursor behind.
	bad := indexer.BlockData{Height: 2, Time: t0.Add(time.Minute), End: []proto.Message{
		&offertypes.EventOfferClosed{OfferId: 1, Provider: provider},
		blocks[0].Txs[1].Events[0],
	}}
	require.Error(t, db.IndexBlock(ctx, bad))
	require.Equal(t, before, dump(t, db))
	cur, err := db.Cursor(ctx)
	require.NoError(t, err)
	require.EqualValues(t, 1, cur)
}

func TestOpenMigrates(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "index.db")
	db, err := indexer.Open(path)
	require.NoError(t, err)
	cur, err := db.Cursor(ctx)
	require.NoError(t, err)
	require.Zero(t, cur)
	indexAll(t, db, fixture()[:2])
	require.NoError(t, db.Close())

	// Reopening applies nothing twice and keeps the rows.
	db, err = indexer.Open(path)
	require.NoError(t, err)
	require.Equal(t, indexer.SchemaVersion(), count(t, db, "schema_migrations"))
	cur, err = db.Cursor(ctx)
	require.NoError(t, err)
	require.EqualValues(t, 2, cur)
	var mode string
	require.NoError(t, db.SQL().QueryRow(`PRAGMA journal_mode`).Scan(&mode))
	require.Equal(t, "wal", mode)
	_, err = db.SQL().Exec(`INSERT INTO schema_migrations (version) VALUES (?)`, indexer.SchemaVersion()+1)
	require.NoError(t, err)
	require.NoError(t, db.Close())

	_, err = indexer.Open(path)
	require.ErrorIs(t, err, indexer.ErrSchemaTooNew)
}

// On PostgreSQL as on SQLite: reopening applies no step twice and keeps the
// rows, two processes opening a new database together both succeed, and a
// database a newer build migrated is refused.
func TestOpenMigratesPostgres(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.DSN(t)
	errs := make(chan error, 2)
	for range 2 {
		go func() {
			db, err := indexer.Open(dsn)
			if err == nil {
				err = db.Close()
			}
			errs <- err
		}()
	}
	require.NoError(t, <-errs)
	require.NoError(t, <-errs)

	db, err := indexer.Open(dsn)
	require.NoError(t, err)
	require.Equal(t, "postgres", db.Dialect())
	indexAll(t, db, fixture()[:2])
	require.NoError(t, db.Close())
	db, err = indexer.Open(dsn)
	require.NoError(t, err)
	require.Equal(t, indexer.SchemaVersion(), count(t, db, "schema_migrations"))
	cur, err := db.Cursor(ctx)
	require.NoError(t, err)
	require.EqualValues(t, 2, cur)
	_, err = db.SQL().Exec(`INSERT INTO schema_migrations (version) VALUES ($1)`, indexer.SchemaVersion()+1)
	require.NoError(t, err)
	require.NoError(t, db.Close())
	_, err = indexer.Open(dsn)
	require.ErrorIs(t, err, indexer.ErrSchemaTooNew)
}
