package keeper_test

import (
	"fmt"
	"math/rand"
	"strconv"
	"strings"
	"testing"
	"time"

	cmtproto "github.com/cometbft/cometbft/proto/tendermint/types"
	dbm "github.com/cosmos/cosmos-db"

	sdkmath "cosmossdk.io/math"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/app"
	"github.com/idlegpu/idlegpu/app/apptesting"
	"github.com/idlegpu/idlegpu/x/auction/keeper"
	"github.com/idlegpu/idlegpu/x/auction/types"
	"github.com/idlegpu/idlegpu/x/base/chaincfg"
	offertypes "github.com/idlegpu/idlegpu/x/offer/types"
	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
)

const (
	benchModels  = 20
	benchJobs    = 1_000
	gpusPerBench = 100 // GPUs (one offer each) per provider
)

var benchRegions = []string{"eu-de", "eu-fr", "na-us", "na-ca", "as-jp", "oc-au"}

func benchModel(i int) string { return fmt.Sprintf("NVIDIA Bench GPU %02d", i) }

// BenchmarkEndBlockClearing measures x/auction's EndBlock clearing 1,000
// jobs (1 GPU each, SILVER, random model and region) against markets of
// 1k, 10k and 100k standing offers over 20 models with random regions and
// prices, in the real app: each clearing walks x/offer's index, checks
// providers in x/provider, leases GPUs, splits escrow and refunds through
// x/bank. As on a chain, the jobs were posted in an earlier block (bid
// window 1) and everything is committed to IAVL over goleveldb (a node's
// default backend) before timing; each run clears them in a fresh cache of
// the block at their deadline, so every run sees the same state.
//
//	go test ./x/auction/keeper -run '^$' -bench BenchmarkEndBlockClearing -benchtime 5x
func BenchmarkEndBlockClearing(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000} {
		b.Run(fmt.Sprintf("jobs=%d/offers=%d", benchJobs, n), func(b *testing.B) {
			a, renter := benchApp(b, n)
			postBenchJobs(b, a, renter)
			for b.Loop() {
				b.StopTimer()
				base := a.NewNextBlockContext(cmtproto.Header{ChainID: apptesting.ChainID, Height: a.LastBlockHeight() + 1, Time: apptesting.LastBlockTime(a).Add(time.Second)})
				ctx, _ := base.CacheContext()
				b.StartTimer()
				if err := a.AuctionKeeper.EndBlocker(ctx); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				// Every job cleared this block: matched, or expired where its
				// model and region ran out of free GPUs.
				it, err := a.AuctionKeeper.Jobs.Iterate(ctx, nil)
				if err != nil {
					b.Fatal(err)
				}
				jobs, _ := it.Values()
				matched := 0
				for _, j := range jobs {
					switch j.Status {
					case types.JOB_STATUS_MATCHED:
						matched++
					case types.JOB_STATUS_OPEN:
						b.Fatalf("job %d still open", j.Id)
					}
				}
				b.ReportMetric(float64(matched), "matched/op")
				// Candidates gathered per cleared job (the reliability band the
				// stop rule must see), from the EventJobCleared events.
				cands, cleared := 0, 0
				for _, ev := range ctx.EventManager().Events() {
					if ev.Type != "idlegpu.auction.v1.EventJobCleared" {
						continue
					}
					for _, attr := range ev.Attributes {
						if attr.Key == "candidates" {
							n, err := strconv.Atoi(strings.Trim(attr.Value, `"`))
							if err != nil {
								b.Fatal(err)
							}
							cands += n
							cleared++
						}
					}
				}
				if cleared > 0 {
					b.ReportMetric(float64(cands)/float64(cleared), "candidates/job")
				}
				b.StartTimer()
			}
		})
	}
}

// postBenchJobs posts the 1,000 jobs in one block and commits it; they
// clear at the next height.
func postBenchJobs(b *testing.B, a *app.App, renter string) {
	b.Helper()
	msgs := keeper.NewMsgServerImpl(a.AuctionKeeper)
	ctx := a.NewNextBlockContext(cmtproto.Header{ChainID: apptesting.ChainID, Height: a.LastBlockHeight() + 1, Time: apptesting.LastBlockTime(a).Add(time.Second)})
	r := rand.New(rand.NewSource(7))
	for range benchJobs {
		sp := types.JobSpec{
			Image: "ghcr.io/acme/bench", ImageDigest: "sha256:" + fmt.Sprintf("%064x", 1), ManifestHash: fmt.Sprintf("%064x", 2),
			Workload: offertypes.WORKLOAD_BATCH, GpuCount: 1, Models: []string{benchModel(r.Intn(benchModels))},
			Regions: []string{benchRegions[r.Intn(len(benchRegions))][:2]}, Tier: types.TIER_SILVER,
			DurationSeconds: 3600, MaxPrice: sdk.NewInt64Coin(chaincfg.USDCDenom, 3_000_000), BidWindowBlocks: 1,
		}
		if _, err := msgs.PostJob(ctx, &types.MsgPostJob{Renter: renter, Spec: sp}); err != nil {
			b.Fatal(err)
		}
	}
	res := apptesting.NextBlock(b, a) // commits what the block context wrote
	for _, ev := range res.Events {
		if ev.Type == "idlegpu.auction.v1.EventJobCleared" || ev.Type == "idlegpu.auction.v1.EventJobExpired" {
			b.Fatal("a job cleared in the block that posted it")
		}
	}
}

// benchApp is a chain with n one-GPU standing offers from n/100 providers,
// imported through x/provider's and x/offer's own InitGenesis (which
// rebuild the market index), committed, and one funded renter.
func benchApp(b *testing.B, n int) (*app.App, string) {
	b.Helper()
	accs := apptesting.NewAccounts(1, sdk.NewCoins(sdk.NewCoin(chaincfg.BondDenom, sdkmath.NewInt(1e15)), sdk.NewCoin(chaincfg.USDCDenom, sdkmath.NewInt(1e15))))
	db, err := dbm.NewGoLevelDB("application", b.TempDir(), nil)
	if err != nil {
		b.Fatal(err)
	}
	a := apptesting.SetupWithDB(b, db, accs)
	ctx := a.NewNextBlockContext(cmtproto.Header{ChainID: apptesting.ChainID, Height: a.LastBlockHeight() + 1, Time: apptesting.LastBlockTime(a).Add(time.Second)})
	r := rand.New(rand.NewSource(42))
	now := ctx.BlockTime()

	// All 1,000 jobs clear in one block (the default bound is 500).
	aparams := types.DefaultParams()
	aparams.MaxClearingsPerBlock = benchJobs
	if err := a.AuctionKeeper.Params.Set(ctx, aparams); err != nil {
		b.Fatal(err)
	}
	pparams := providertypes.DefaultParams()
	pgen := providertypes.GenesisState{Params: pparams, NextUnbondingId: 1}
	ogen := offertypes.GenesisState{Params: offertypes.DefaultParams(), NextOfferId: uint64(n + 1)}
	ogen.Params.PaymentDenoms = []string{chaincfg.BondDenom, chaincfg.USDCDenom}
	for p := 0; p < n/gpusPerBench; p++ {
		op := sdk.AccAddress(fmt.Appendf(nil, "bench-provider-%05d", p)).String()
		region := benchRegions[r.Intn(len(benchRegions))]
		pgen.Providers = append(pgen.Providers, providertypes.Provider{
			Operator: op, Moniker: "bench", Region: region, Endpoint: "https://gpu.example.com", TlsCertSha256: certHash,
			Stake: sdk.NewCoin(chaincfg.BondDenom, pparams.RequiredStake(gpusPerBench)), Unbonding: sdk.NewInt64Coin(chaincfg.BondDenom, 0),
			Status: providertypes.PROVIDER_STATUS_ACTIVE, GpuCount: gpusPerBench, CommittedGpus: gpusPerBench, CreatedAt: now,
		})
		pgen.Reputations = append(pgen.Reputations, providertypes.ProviderReputation{Provider: op, Reputation: providertypes.Reputation{ReliabilityBps: 9500 + uint32(r.Intn(501))}})
		ogen.ProviderStats = append(ogen.ProviderStats, offertypes.ProviderStats{Provider: op, Offers: gpusPerBench, OfferedGpus: gpusPerBench, Since: now, UpdatedAt: now})
		for g := 0; g < gpusPerBench; g++ {
			i := p*gpusPerBench + g
			info := providertypes.GPUInfo{
				Uuid: fmt.Sprintf("GPU-%08x-0000-0000-0000-000000000000", i), Model: benchModel(r.Intn(benchModels)), MemoryMib: 81559,
				PciBusId: fmt.Sprintf("00000000:%02X:00.0", g), DriverVersion: "550.54.15", VbiosVersion: "96.00.89.00.01",
			}
			pgen.Gpus = append(pgen.Gpus, providertypes.GPU{
				Uuid: info.Uuid, Provider: op, Model: info.Model, MemoryMib: info.MemoryMib, PciBusId: info.PciBusId,
				DriverVersion: info.DriverVersion, VbiosVersion: info.VbiosVersion, Fingerprint: info.Fingerprint(), Committed: true, RegisteredAt: now,
			})
			price := int64(1_000_000 + r.Intn(2_000_000))
			ogen.Offers = append(ogen.Offers, offertypes.Offer{
				Id: uint64(i + 1), Provider: op, GpuUuids: []string{info.Uuid}, Model: info.Model, MemoryMib: info.MemoryMib, Region: region,
				Terms: offertypes.OfferTerms{
					PriceOnDemand: &sdk.Coin{Denom: chaincfg.USDCDenom, Amount: sdkmath.NewInt(price)}, PricePreemptible: &sdk.Coin{Denom: chaincfg.USDCDenom, Amount: sdkmath.NewInt(price / 2)},
					Lanes: offertypes.AllLanes, Workloads: offertypes.AllWorkloads,
				},
				Status: offertypes.OFFER_STATUS_OPEN, CreatedAt: now, UpdatedAt: now,
			})
		}
	}
	offertypes.SortStats(ogen.ProviderStats)
	if err := a.ProviderKeeper.InitGenesis(ctx, &pgen); err != nil {
		b.Fatal(err)
	}
	if err := a.OfferKeeper.InitGenesis(ctx, &ogen); err != nil {
		b.Fatal(err)
	}
	apptesting.NextBlock(b, a) // commits what the block context wrote
	return a, accs[0].Address.String()
}
