package keeper

import (
	"fmt"
	"math/rand"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	sdkmath "cosmossdk.io/math"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/auction/types"
)

// TestStopRuleMatchesExhaustiveClearing: on random markets (bids first,
// then standing offers cheapest first, as the walk visits them) the
// stopped walk clears exactly like the whole candidate list: same winners,
// GPUs, runner-up and price, for single-provider and split jobs.
func TestStopRuleMatchesExhaustiveClearing(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for i := range 2000 {
		gpus := uint32(1 + r.Intn(4))
		split := r.Intn(2) == 0
		maxPrice := sdkmath.NewInt(int64(1_000 + r.Intn(3_000)))
		spec := types.JobSpec{GpuCount: gpus, AllowSplit: split, MaxPrice: sdkCoin(maxPrice)}
		providers := 1 + r.Intn(12)
		rel := make([]uint32, providers)
		for p := range rel {
			rel[p] = uint32(9000 + r.Intn(1001))
		}
		cand := func(p int, seq uint64, id uint64) types.Candidate {
			free := make([]string, 1+r.Intn(4))
			for g := range free {
				free[g] = fmt.Sprintf("GPU-%d-%d-%d", p, id, g)
			}
			return types.Candidate{
				Provider: []byte{byte(p)}, OfferID: id, Price: sdkmath.NewInt(int64(1_000 + r.Intn(2_000))),
				Reliability: rel[p], Seq: seq, FreeGPUs: free,
			}
		}
		var bids, offers []types.Candidate
		for b := range r.Intn(3) {
			bids = append(bids, cand(r.Intn(providers), uint64(b+1), uint64(1000+b)))
		}
		for o := range r.Intn(40) {
			offers = append(offers, cand(r.Intn(providers), types.StandingOfferSeq, uint64(o+1)))
		}
		slices.SortFunc(offers, func(a, b types.Candidate) int {
			if c := a.Price.BigInt().Cmp(b.Price.BigInt()); c != 0 {
				return c
			}
			return int(a.OfferID) - int(b.OfferID)
		})

		all := append(slices.Clone(bids), offers...)
		walked := slices.Clone(bids)
		stop := stopRule{spec: spec, checkAt: 2}
		for _, c := range offers {
			if stop.reached(walked, c.Price) {
				break
			}
			walked = append(walked, c)
		}
		for _, rule := range []types.ClearingRule{types.CLEARING_RULE_SECOND_PRICE, types.CLEARING_RULE_FIRST_PRICE} {
			want, wantOK := types.Clear(all, gpus, split, maxPrice, rule)
			got, gotOK := types.Clear(walked, gpus, split, maxPrice, rule)
			require.Equal(t, wantOK, gotOK, "market %d", i)
			require.Equal(t, want, got, "market %d: walked %d of %d candidates", i, len(walked), len(all))
		}
	}
}

func sdkCoin(amount sdkmath.Int) sdk.Coin { return sdk.NewCoin("uusdc", amount) }
