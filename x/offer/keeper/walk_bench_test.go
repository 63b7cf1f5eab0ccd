package keeper

import (
	"fmt"
	"testing"
	"time"

	cmtproto "github.com/cometbft/cometbft/proto/tendermint/types"

	"cosmossdk.io/log/v2"
	"cosmossdk.io/math"

	addresscodec "github.com/cosmos/cosmos-sdk/codec/address"
	"github.com/cosmos/cosmos-sdk/runtime"
	storetypes "github.com/cosmos/cosmos-sdk/store/v2/types"
	"github.com/cosmos/cosmos-sdk/testutil"
	sdk "github.com/cosmos/cosmos-sdk/types"
	moduletestutil "github.com/cosmos/cosmos-sdk/types/module/testutil"
	authtypes "github.com/cosmos/cosmos-sdk/x/auth/types"
	govtypes "github.com/cosmos/cosmos-sdk/x/gov/types"

	"github.com/idlegpu/idlegpu/x/offer/types"
)

const (
	benchModels  = 20
	benchSkipped = 10 // the cheapest offers of the walked model take no training jobs
)

// BenchmarkWalkCandidates measures the clearing walk to the first fit over
// markets of 1k, 10k and 100k OPEN offers spread over 20 models, read from a
// committed IAVL store as a block would. The 10 cheapest offers (of the
// model, and overall) take inference jobs only, so each walk of a training
// job skips k = 10 entries first: the cost should grow with log n, not n.
// (Fully leased offers leave the index, so they would not be skipped.)
//
//	go test ./x/offer/keeper -run '^$' -bench BenchmarkWalkCandidates -benchmem
func BenchmarkWalkCandidates(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000} {
		ctx, k := benchMarket(b, n)
		for _, tc := range []struct {
			name   string
			models []string
		}{{"one-model", []string{benchModel(0)}}, {"any-model", nil}, {"three-models", []string{benchModel(0), benchModel(1), benchModel(2)}}} {
			q := types.CandidateQuery{
				Lane: types.LANE_ON_DEMAND, Models: tc.models, MaxPrice: sdk.NewInt64Coin("uusdc", 1_000_000_000),
				Workload: types.WORKLOAD_TRAINING, GPUCount: 1, DurationSeconds: 3600, MaxScan: 256,
			}
			b.Run(fmt.Sprintf("%s/offers=%d", tc.name, n), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					var found uint64
					scanned, err := k.WalkCandidates(ctx, q, func(c types.Candidate) (bool, error) {
						found = c.Offer.Id
						return true, nil
					})
					if err != nil || found == 0 || scanned != benchSkipped+1 {
						b.Fatalf("walk: found %d after %d entries, err %v", found, scanned, err)
					}
				}
			})
		}
	}
}

func benchModel(i int) string { return fmt.Sprintf("NVIDIA Bench GPU %02d", i) }

// benchMarket writes n OPEN offers through saveOffer (so indexes and stats
// are real), commits them, and returns a fresh block context over them.
func benchMarket(b *testing.B, n int) (sdk.Context, Keeper) {
	b.Helper()
	key := storetypes.NewKVStoreKey(types.StoreKey)
	tctx := testutil.DefaultContextWithDB(b, key, storetypes.NewTransientStoreKey("transient_bench"))
	cdc := moduletestutil.MakeTestEncodingConfig().Codec
	ac := addresscodec.NewBech32Codec("idle")
	authority, _ := ac.BytesToString(authtypes.NewModuleAddress(govtypes.ModuleName))
	k := NewKeeper(cdc, runtime.NewKVStoreService(key), ac, nil, authority)
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	header := cmtproto.Header{Time: now}

	providers := make([]string, 100)
	for i := range providers {
		providers[i], _ = ac.BytesToString([]byte(fmt.Sprintf("bench-provider-%05d", i)))
	}
	const batch = 5_000
	for start := 0; start < n; start += batch {
		cms := tctx.CMS.CacheMultiStore()
		ctx := sdk.NewContext(cms, header, false, log.NewNopLogger())
		for i := start; i < min(n, start+batch); i++ {
			model := i % benchModels
			// Prices spread over [1.0, 2.0) USDC; the first benchSkipped offers of
			// model 0 are the cheapest in the market and take inference only.
			price := int64(1_000_000 + (i*7919)%1_000_000)
			uuid := fmt.Sprintf("GPU-%08x-0000-0000-0000-000000000000", i)
			o := types.Offer{
				Id: uint64(i + 1), Provider: providers[i%len(providers)], GpuUuids: []string{uuid},
				Model: benchModel(model), MemoryMib: 81559, Region: "eu-de",
				Terms: types.OfferTerms{
					PriceOnDemand: &sdk.Coin{Denom: "uusdc", Amount: math.NewInt(price)}, PricePreemptible: &sdk.Coin{Denom: "uusdc", Amount: math.NewInt(price / 2)},
					Lanes: types.AllLanes, Workloads: types.AllWorkloads,
				},
				Status: types.OFFER_STATUS_OPEN, CreatedAt: now, UpdatedAt: now,
			}
			if model == 0 && i/benchModels < benchSkipped {
				o.Terms.PriceOnDemand.Amount = math.NewInt(int64(1 + i/benchModels))
				o.Terms.Workloads = uint32(types.WORKLOAD_INFERENCE)
			}
			if err := k.saveOffer(ctx, nil, &o); err != nil {
				b.Fatal(err)
			}
		}
		cms.Write()
		tctx.CMS.Commit()
	}
	if err := k.OfferSeq.Set(sdk.NewContext(tctx.CMS, header, false, log.NewNopLogger()), uint64(n+1)); err != nil {
		b.Fatal(err)
	}
	tctx.CMS.Commit()
	return sdk.NewContext(tctx.CMS.CacheMultiStore(), header, false, log.NewNopLogger()), k
}

// BenchmarkCheapestByFullScan is the baseline the index replaces: finding
// the cheapest fit by reading every offer, O(n).
//
//	go test ./x/offer/keeper -run '^$' -bench BenchmarkCheapestByFullScan -benchmem
func BenchmarkCheapestByFullScan(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000} {
		ctx, k := benchMarket(b, n)
		b.Run(fmt.Sprintf("offers=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				var best types.Offer
				var bestPrice math.Int
				err := k.Offers.Walk(ctx, nil, func(_ uint64, o types.Offer) (bool, error) {
					if o.Model != benchModel(0) || !o.Terms.AcceptsWorkload(types.WORKLOAD_TRAINING) {
						return false, nil
					}
					if p := o.Terms.PriceOnDemand.Amount; best.Id == 0 || p.LT(bestPrice) {
						best, bestPrice = o, p
					}
					return false, nil
				})
				if err != nil || best.Id == 0 {
					b.Fatalf("scan: %v", err)
				}
			}
		})
	}
}
