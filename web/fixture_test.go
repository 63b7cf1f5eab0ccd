package web

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	sdkmath "cosmossdk.io/math"

	"github.com/cosmos/cosmos-sdk/baseapp"
	storetypes "github.com/cosmos/cosmos-sdk/store/v2/types"
	sdk "github.com/cosmos/cosmos-sdk/types"
	"github.com/cosmos/gogoproto/proto"

	"github.com/idlegpu/idlegpu/app/apptesting"
	"github.com/idlegpu/idlegpu/indexer"
	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
	"github.com/idlegpu/idlegpu/x/base/chaincfg"
	offertypes "github.com/idlegpu/idlegpu/x/offer/types"
	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
	settlementtypes "github.com/idlegpu/idlegpu/x/settlement/types"
)

// The pages are tested and measured against the real app (its keepers
// behind its own gRPC query router, exactly what a node's gRPC serves) and a
// real index database.

// fixtureModels are models of the chain's GPU model table, with their memory.
var fixtureModels = []struct {
	name string
	mib  uint64
}{
	{"NVIDIA H100 80GB HBM3", 81559}, {"NVIDIA A100-SXM4-80GB", 81920}, {"NVIDIA L40S", 46068}, {"NVIDIA GeForce RTX 4090", 24564},
}

var fixtureRegions = []string{"eu-de-fra1", "na-us-va1", "as-jp-tyo1"}

// fixture is a market of providers × offersEach one-GPU offers (provider i
// sells model i%4 in region i%3 at 1.0 + i/100 USDC per GPU-hour on demand)
// and an index holding ended leases, each with one proven epoch.
type fixture struct {
	srv       *Server
	db        *indexer.DB
	providers []string
	renters   []string
	leases    int
	// head is what the server reads as the node's newest block.
	head func(context.Context) (Head, error)
}

func onDemandPrice(i int) int64 { return 1_000_000 + int64(i)*10_000 }

func newFixture(tb testing.TB, providers, offersEach, leases int) *fixture {
	tb.Helper()
	return newFixtureJobs(tb, providers, offersEach, leases, 1)
}

// newFixtureJobs is newFixture with jobs open jobs of renter 0 on chain.
func newFixtureJobs(tb testing.TB, providers, offersEach, leases, jobs int) *fixture {
	tb.Helper()
	return newFixtureOn(tb, filepath.Join(tb.TempDir(), "index.db"), providers, offersEach, leases, jobs)
}

// newFixtureOn is the fixture with its index in the database target names
// (an SQLite file, or a postgres:// URL). Each setup runs on the market
// after the fixture's own jobs and before the block is committed.
func newFixtureOn(tb testing.TB, target string, providers, offersEach, leases, jobs int, setup ...func(apptesting.Market, *fixture)) *fixture {
	tb.Helper()
	mc := apptesting.NewMarketChain(tb, providers+2, apptesting.MarketFunds())
	m := apptesting.Market{TB: tb, App: mc.App, Ctx: mc.Ctx}
	// The market takes USDC, as the node's development genesis sets it.
	op := offertypes.DefaultParams()
	op.PaymentDenoms = []string{chaincfg.BondDenom, chaincfg.USDCDenom}
	require.NoError(tb, mc.App.OfferKeeper.Params.Set(mc.Ctx, op))
	f := &fixture{leases: leases}
	gpu := 0
	for i := range providers {
		op := mc.Accs[i].Address.String()
		f.providers = append(f.providers, op)
		model := fixtureModels[i%len(fixtureModels)]
		m.RegisterProvider(op, fmt.Sprintf("provider %d", i), fixtureRegions[i%len(fixtureRegions)])
		var uuids []string
		for left := offersEach; left > 0; left -= 64 {
			n := min(left, 64)
			uuids = append(uuids, m.RegisterGPUs(op, apptesting.GPUs(gpu, n, model.name, model.mib))...)
			gpu += n
		}
		m.Bond(op, m.RequiredStake(uint32(offersEach)))
		for _, u := range uuids {
			m.CreateOffer(op, []string{u}, apptesting.Terms(onDemandPrice(i)))
		}
	}
	for _, a := range mc.Accs[providers:] {
		f.renters = append(f.renters, a.Address.String())
	}
	// One real job, open on chain: job 1 is the chain's; the index's other
	// jobs and leases are known only to it (as on a pruned node).
	spec := apptesting.TrainingJob(1, 2_000_000)
	spec.DurationSeconds = 3600
	for range jobs {
		m.PostJob(f.renters[0], spec)
	}
	for _, set := range setup {
		set(m, f)
	}
	// Commit the block and query it as a node's gRPC does: a read-only
	// branch of the committed version (not the writing block's cache).
	mc.Ctx.MultiStore().(storetypes.CacheMultiStore).Write()
	cid := mc.App.CommitMultiStore().Commit()
	qms, err := mc.App.CommitMultiStore().CacheMultiStoreWithVersion(cid.Version)
	require.NoError(tb, err)
	qctx := sdk.NewContext(qms, mc.Ctx.BlockHeader(), false, mc.App.Logger())
	conn := &baseapp.QueryServiceTestHelper{GRPCQueryRouter: mc.App.GRPCQueryRouter(), Ctx: qctx}

	db, err := indexer.Open(target)
	require.NoError(tb, err)
	tb.Cleanup(func() { db.Close() })
	f.db = db
	f.seedIndex(tb, leases)

	// The node's head: the chain at the index's newest block, just made,
	// unless a test says otherwise.
	f.head = func(ctx context.Context) (Head, error) {
		h, err := db.Cursor(ctx)
		return Head{Height: h, Time: time.Now()}, err
	}
	f.srv, err = New(context.Background(), Config{ChainID: apptesting.ChainID, RelayerFee: sdkmath.NewInt(50_000),
		Head: func(ctx context.Context) (Head, error) { return f.head(ctx) }}, conn, db, nil)
	require.NoError(tb, err)
	return f
}

// seedIndex feeds the index, through the same IndexBlock the indexer
// uses, blocks of well-formed events: each lease's offer, job, clearing,
// one proven epoch with its proof's GPU summary, its end and the
// provider's reputation after it; 1,000 leases per block.
func (f *fixture) seedIndex(tb testing.TB, leases int) {
	tb.Helper()
	ctx := context.Background()
	// Recent enough that every clearing is inside the market chart's window.
	start := time.Now().UTC().Truncate(time.Hour).Add(-time.Duration(leases/1000+2) * time.Hour)
	const perBlock = 1000
	height := int64(0)
	for first := 0; first < leases || height == 0; first += perBlock {
		height++
		b := indexer.BlockData{Height: height, Time: start.Add(time.Duration(height) * time.Hour), Proposer: "A1B2C3"}
		var events []proto.Message
		var proofs []settlementtypes.ExecutionProof
		for i := first; i < min(first+perBlock, leases); i++ {
			ev, proof := f.endedLease(i, f.renters[i%len(f.renters)], b.Time)
			events = append(events, ev...)
			proofs = append(proofs, proof)
		}
		b.Txs = []indexer.TxData{{Hash: fmt.Sprintf("%064X", height), Msgs: []proto.Message{&settlementtypes.MsgSubmitProofs{Proofs: proofs}}, Events: events}}
		require.NoError(tb, f.db.IndexBlock(ctx, b))
	}
}

// endedLease is the events of the index's i-th lease (id i+1) of renter,
// from its offer to its end, at time at, and its epoch's proof.
func (f *fixture) endedLease(i int, renter string, at time.Time) ([]proto.Message, settlementtypes.ExecutionProof) {
	id := uint64(i + 1)
	p := i % len(f.providers)
	provider := f.providers[p]
	model := fixtureModels[p%len(fixtureModels)].name
	price := sdk.NewInt64Coin("uusdc", onDemandPrice(p))
	uuid := apptesting.GPUUUID(1_000_000 + i)
	escrow := auctiontypes.Deposit(price, 1, 3600)
	paid := auctiontypes.Due(price, 1, 3600)
	fee := sdk.NewCoin("uusdc", paid.Amount.QuoRaw(50))
	offer := offertypes.Offer{Id: 1_000_000 + id, Provider: provider, GpuUuids: []string{uuid}, Model: model, MemoryMib: 81559,
		Region: fixtureRegions[p%len(fixtureRegions)], Terms: apptesting.Terms(onDemandPrice(p)), Status: offertypes.OFFER_STATUS_OPEN}
	job := auctiontypes.Job{Id: id, Renter: renter, Deposit: escrow, Status: auctiontypes.JOB_STATUS_OPEN, CreatedAt: at,
		Spec: auctiontypes.JobSpec{GpuCount: 1, Models: []string{model}, Tier: auctiontypes.TIER_SILVER, DurationSeconds: 3600, MaxPrice: price,
			Image: apptesting.Image, ImageDigest: apptesting.ImageDigest, ManifestHash: apptesting.ManifestHash, Workload: offertypes.WORKLOAD_TRAINING}}
	lease := auctiontypes.Lease{Id: id, JobId: id, Renter: renter, Provider: provider, OfferId: offer.Id, GpuUuids: []string{uuid},
		Price: price, Tier: auctiontypes.TIER_SILVER, DurationSeconds: 3600, Escrow: escrow, Paid: sdk.NewInt64Coin("uusdc", 0),
		Status: auctiontypes.LEASE_STATUS_PENDING, CreatedAt: at}
	events := []proto.Message{
		&offertypes.EventOfferCreated{Offer: offer},
		&auctiontypes.EventJobPosted{Job: job},
		&auctiontypes.EventJobCleared{JobId: id, ClearingPrice: price, LeaseIds: []uint64{id}, Candidates: 3, Leases: []auctiontypes.Lease{lease}},
		&auctiontypes.EventLeaseStarted{LeaseId: id, Provider: provider},
		&settlementtypes.EventProofAccepted{LeaseId: id, Epoch: 0, Provider: provider, Paid: paid, Fee: fee, SamplesRoot: []byte{1, 2, 3}},
		&auctiontypes.EventLeaseEnded{LeaseId: id, Status: auctiontypes.LEASE_STATUS_COMPLETED, Reason: "ran to its end", Paid: paid,
			JobId: id, JobStatus: auctiontypes.JOB_STATUS_COMPLETED},
		&providertypes.EventReputationChanged{Provider: provider, Reputation: providertypes.Reputation{ReliabilityBps: 9000 + uint32(i%900), ProvenEpochs: uint64(i/len(f.providers) + 1)}},
	}
	return events, settlementtypes.ExecutionProof{LeaseId: id, Epoch: 0,
		Gpus: []settlementtypes.GPUSummary{{Uuid: uuid, Samples: 60, UtilAvgBps: 9500, UtilMinBps: 9000, MemUsedMaxMib: 70_000, EnergyMj: 2_000_000_000, PowerAvgMw: 550_000}}}
}
