package keeper_test

import (
	"time"

	"github.com/idlegpu/idlegpu/x/offer/types"
	providerkeeper "github.com/idlegpu/idlegpu/x/provider/keeper"
	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
)

// An OPEN offer of a provider that cannot take work (JAILED, TOMBSTONED,
// INACTIVE after a slash or a raise of min_stake_per_gpu) is not shown as
// on sale: the queries flag it, Search and Candidates leave it out, and its
// free GPUs do not count as offered capacity.
func (s *KeeperTestSuite) TestOffersOfProvidersThatCannotWorkAreNotOnSale() {
	provider := func() *providerkeeper.Keeper { k := s.app.ProviderKeeper; return &k }
	for _, tc := range []struct {
		name   string
		status providertypes.ProviderStatus
		stop   func()
	}{
		{"jailed", providertypes.PROVIDER_STATUS_JAILED, func() {
			s.Require().NoError(provider().Jail(s.ctx, s.accs[0].Address, s.ctx.BlockTime().Add(time.Hour)))
		}},
		{"tombstoned", providertypes.PROVIDER_STATUS_TOMBSTONED, func() {
			s.Require().NoError(provider().Tombstone(s.ctx, s.accs[0].Address))
		}},
		{"inactive after a slash", providertypes.PROVIDER_STATUS_INACTIVE, func() {
			_, err := provider().Slash(s.ctx, s.accs[0].Address, 100, providertypes.SLASH_REASON_LIVENESS, nil)
			s.Require().NoError(err)
		}},
		{"inactive after min_stake_per_gpu rose", providertypes.PROVIDER_STATUS_INACTIVE, func() {
			params, err := provider().Params.Get(s.ctx)
			s.Require().NoError(err)
			params.MinStakePerGpu = ugpu(2 * stakePerGPU)
			_, err = s.providers.UpdateParams(s.ctx, &providertypes.MsgUpdateParams{Authority: s.authority, Params: params})
			s.Require().NoError(err)
		}},
	} {
		s.Run(tc.name, func() {
			s.SetupTest()
			mine := s.provide(0, h100, 81559, 0, 3, 3) // exactly the stake its 3 GPUs need
			theirs := s.provide(1, h100, 81559, 10, 2, 4)
			id0 := s.create(0, mine, terms(1_000_000)) // the cheapest
			id1 := s.create(1, theirs, terms(2_000_000))
			s.Require().NoError(s.keeper.OccupyForLease(s.ctx, id0, mine[:1]))

			tc.stop()
			s.Require().Equal(tc.status, s.providerState(0).Status)
			s.Require().Equal(types.OFFER_STATUS_OPEN, s.offer(id0).Status, "the offer itself is the provider's to close")

			one, err := s.queryServer.Offer(s.ctx, &types.QueryOfferRequest{Id: id0})
			s.Require().NoError(err)
			s.Require().False(one.ProviderCanTakeWork)
			other, err := s.queryServer.Offer(s.ctx, &types.QueryOfferRequest{Id: id1})
			s.Require().NoError(err)
			s.Require().True(other.ProviderCanTakeWork)
			list, err := s.queryServer.ProviderOffers(s.ctx, &types.QueryProviderOffersRequest{Provider: s.operator(0)})
			s.Require().NoError(err)
			s.Require().Equal([]uint64{id0}, offerIDs(list.Offers))
			s.Require().False(list.ProviderCanTakeWork)

			open, err := s.queryServer.Search(s.ctx, &types.QuerySearchRequest{})
			s.Require().NoError(err)
			s.Require().Equal([]uint64{id1}, offerIDs(open.Offers), "only offers a job can be matched with are open")

			cands, err := s.queryServer.Candidates(s.ctx, &types.QueryCandidatesRequest{
				Lane: types.LANE_ON_DEMAND, MaxPrice: *usdc(5_000_000), Workload: types.WORKLOAD_BATCH, GpuCount: 1, DurationSeconds: 600,
			})
			s.Require().NoError(err)
			s.Require().Len(cands.Candidates, 1)
			s.Require().Equal(id1, cands.Candidates[0].OfferId)

			// 100 s later its two free GPUs were not on sale: only the
			// leased one counts as offered.
			s.advance(100 * time.Second)
			fr, err := s.queryServer.FillRate(s.ctx, &types.QueryFillRateRequest{Provider: s.operator(0)})
			s.Require().NoError(err)
			s.Require().False(fr.ProviderCanTakeWork)
			s.Require().Equal([4]uint64{1, 1, 100, 100}, [4]uint64{
				uint64(fr.Stats.OfferedGpus), uint64(fr.Stats.LeasedGpus), fr.Stats.OfferedGpuSeconds, fr.Stats.LeasedGpuSeconds,
			})
			s.Require().Equal(uint32(10_000), fr.FillRateBps)
			fr, err = s.queryServer.FillRate(s.ctx, &types.QueryFillRateRequest{Provider: s.operator(1)})
			s.Require().NoError(err)
			s.Require().True(fr.ProviderCanTakeWork)
			s.Require().Equal([2]uint64{2, 200}, [2]uint64{uint64(fr.Stats.OfferedGpus), fr.Stats.OfferedGpuSeconds})
		})
	}
}
