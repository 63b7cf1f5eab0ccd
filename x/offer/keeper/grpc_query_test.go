package keeper_test

import (
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	sdk "github.com/cosmos/cosmos-sdk/types"
	"github.com/cosmos/cosmos-sdk/types/query"

	"github.com/idlegpu/idlegpu/x/offer/types"
)

func (s *KeeperTestSuite) TestQueryParams() {
	res, err := s.queryServer.Params(s.ctx, &types.QueryParamsRequest{})
	s.Require().NoError(err)
	s.Require().Equal(marketParams(), res.Params)

	_, err = s.queryServer.Params(s.ctx, nil)
	s.Require().Equal(codes.InvalidArgument, status.Code(err))
}

func (s *KeeperTestSuite) TestQueryOffers() {
	s.market()
	res, err := s.queryServer.Offer(s.ctx, &types.QueryOfferRequest{Id: 4})
	s.Require().NoError(err)
	s.requireSameOffer(s.offer(4), res.Offer)
	_, err = s.queryServer.Offer(s.ctx, &types.QueryOfferRequest{Id: 99})
	s.Require().Equal(codes.NotFound, status.Code(err))

	// Provider 1's three offers, two per page.
	page1, err := s.queryServer.ProviderOffers(s.ctx, &types.QueryProviderOffersRequest{Provider: s.operator(1), Pagination: &query.PageRequest{Limit: 2, CountTotal: true}})
	s.Require().NoError(err)
	s.Require().Equal([]uint64{3, 4}, offerIDs(page1.Offers))
	s.Require().Equal(uint64(3), page1.Pagination.Total)
	page2, err := s.queryServer.ProviderOffers(s.ctx, &types.QueryProviderOffersRequest{Provider: s.operator(1), Pagination: &query.PageRequest{Key: page1.Pagination.NextKey}})
	s.Require().NoError(err)
	s.Require().Equal([]uint64{5}, offerIDs(page2.Offers))
	_, err = s.queryServer.ProviderOffers(s.ctx, &types.QueryProviderOffersRequest{Provider: "nope"})
	s.Require().Equal(codes.InvalidArgument, status.Code(err))

	for _, tc := range []struct {
		name string
		req  types.QuerySearchRequest
		want []uint64
	}{
		{"everything open", types.QuerySearchRequest{}, []uint64{1, 2, 3, 4, 5}},
		{"model", types.QuerySearchRequest{Model: h100}, []uint64{1, 2, 3, 5}},
		{"memory", types.QuerySearchRequest{MinMemoryMib: 50_000}, []uint64{1, 2, 3, 5}},
		{"region", types.QuerySearchRequest{Region: "na"}, []uint64{3, 4, 5}},
		{"lane", types.QuerySearchRequest{Lane: types.LANE_PREEMPTIBLE}, []uint64{1, 2, 3, 4}},
		{"max price any lane", types.QuerySearchRequest{MaxPrice: usdc(1_000_000)}, []uint64{2, 3, 4}},
		{"max price on lane", types.QuerySearchRequest{Lane: types.LANE_ON_DEMAND, MaxPrice: usdc(1_000_000)}, []uint64{4}},
		{"max price in ugpu", types.QuerySearchRequest{MaxPrice: &[]sdk.Coin{ugpu(3_000_000)}[0]}, []uint64{5}},
		{"paused", types.QuerySearchRequest{Status: types.OFFER_STATUS_PAUSED}, nil},
	} {
		res, err := s.queryServer.Search(s.ctx, &tc.req)
		s.Require().NoError(err, tc.name)
		s.Require().Equal(tc.want, offerIDs(res.Offers), tc.name)
	}
	_, err = s.queryServer.Search(s.ctx, &types.QuerySearchRequest{Region: "Europe"})
	s.Require().Equal(codes.InvalidArgument, status.Code(err))

	cands, err := s.queryServer.Candidates(s.ctx, &types.QueryCandidatesRequest{
		Lane: types.LANE_ON_DEMAND, MaxPrice: *usdc(5_000_000), Workload: types.WORKLOAD_BATCH, GpuCount: 2, DurationSeconds: 600,
	})
	s.Require().NoError(err)
	s.Require().Len(cands.Candidates, 2)
	s.Require().Equal(types.CandidateInfo{
		OfferId: 4, Provider: s.operator(1), Model: l40s, Region: "na-us", Price: *usdc(1_000_000),
		FreeGpuUuids: []string{gpuUUID(20), gpuUUID(21)},
	}, cands.Candidates[0])
	s.Require().Equal(uint64(1), cands.Candidates[1].OfferId)
	_, err = s.queryServer.Candidates(s.ctx, &types.QueryCandidatesRequest{Lane: types.LANE_ON_DEMAND, MaxPrice: *usdc(1), Workload: types.WORKLOAD_BATCH})
	s.Require().Equal(codes.InvalidArgument, status.Code(err), "no gpu count")
	_, err = s.queryServer.Candidates(s.ctx, &types.QueryCandidatesRequest{Limit: 101})
	s.Require().Equal(codes.InvalidArgument, status.Code(err))

	for name, call := range map[string]func() error{
		"offer":      func() error { _, err := s.queryServer.Offer(s.ctx, nil); return err },
		"provider":   func() error { _, err := s.queryServer.ProviderOffers(s.ctx, nil); return err },
		"search":     func() error { _, err := s.queryServer.Search(s.ctx, nil); return err },
		"candidates": func() error { _, err := s.queryServer.Candidates(s.ctx, nil); return err },
		"fill rate":  func() error { _, err := s.queryServer.FillRate(s.ctx, nil); return err },
	} { //detlint:allow independent cases
		s.Require().Equal(codes.InvalidArgument, status.Code(call()), name)
	}
}

func offerIDs(offers []types.Offer) []uint64 {
	var ids []uint64
	for _, o := range offers {
		ids = append(ids, o.Id)
	}
	return ids
}
