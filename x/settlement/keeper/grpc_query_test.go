package keeper_test

import (
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/cosmos/cosmos-sdk/types/query"

	"github.com/idlegpu/idlegpu/x/settlement/types"
)

func (s *KeeperTestSuite) TestQueryParams() {
	res, err := s.queryServer.Params(s.ctx, &types.QueryParamsRequest{})
	s.Require().NoError(err)
	s.Require().Equal(suiteParams(), res.Params)

	_, err = s.queryServer.Params(s.ctx, nil)
	s.Require().Equal(codes.InvalidArgument, status.Code(err))
}

// TestQueriesFollowSettlement: rewards, proofs (paged) and progress show
// what the proofs did.
func (s *KeeperTestSuite) TestQueriesFollowSettlement() {
	s.provider(0, 1, 3_600_000) // 1,000 uusdc per GPU-second
	l := s.lease(3, 1, 1800*time.Second, 4_000_000)
	for k := range uint64(2) {
		_, to, _ := types.EpochWindow(l.Start, l.DurationSeconds, 600, k)
		s.until(to)
		_, err := s.submit(agent, 0, s.proof(l, k, 300))
		s.Require().NoError(err)
	}
	rewards, err := s.queryServer.Rewards(s.ctx, &types.QueryRewardsRequest{Provider: s.operator(0)})
	s.Require().NoError(err)
	// Two epochs of 600 s at 1,000 uusdc/s = 1,200,000, less 2 % = 1,176,000.
	s.Require().Equal("1176000uusdc", rewards.Rewards.String())

	page1, err := s.queryServer.LeaseProofs(s.ctx, &types.QueryLeaseProofsRequest{LeaseId: l.Id, Pagination: &query.PageRequest{Limit: 1, CountTotal: true}})
	s.Require().NoError(err)
	s.Require().Len(page1.Proofs, 1)
	s.Require().EqualValues(0, page1.Proofs[0].Proof.Epoch)
	s.Require().EqualValues(2, page1.Pagination.Total)
	page2, err := s.queryServer.LeaseProofs(s.ctx, &types.QueryLeaseProofsRequest{LeaseId: l.Id, Pagination: &query.PageRequest{Key: page1.Pagination.NextKey}})
	s.Require().NoError(err)
	s.Require().Len(page2.Proofs, 1)
	s.Require().EqualValues(1, page2.Proofs[0].Proof.Epoch)
	s.Require().Equal("600000uusdc", page2.Proofs[0].Paid.String())
	s.Require().Equal("12000uusdc", page2.Proofs[0].Fee.String())

	prog, err := s.queryServer.LeaseProgress(s.ctx, &types.QueryLeaseProgressRequest{LeaseId: l.Id})
	s.Require().NoError(err)
	_, end2, _ := types.EpochWindow(l.Start, l.DurationSeconds, 600, 2)
	h100Model, _ := types.DefaultParams().GPUModel(h100)
	s.Require().Equal(types.LeaseProgress{
		LeaseId: l.Id, Start: l.Start, EpochSeconds: 600, DurationSeconds: l.DurationSeconds, NextEpoch: 2, ProvenEpochs: 2, ProvenSeconds: 1200,
		NextDue: end2.Add(300 * time.Second), SampleIntervalSeconds: 5, MinSamplesRatioBps: 9000, ProofGraceSeconds: 300,
		MaxMissedEpochs: 2, MissWindowEpochs: 12, GpuModels: []types.GPUModel{h100Model},
	}, prog.Progress)
	none, err := s.queryServer.LeaseProgress(s.ctx, &types.QueryLeaseProgressRequest{LeaseId: 99})
	s.Require().NoError(err)
	s.Require().Zero(none.Progress.NextEpoch)
	_, err = s.queryServer.Rewards(s.ctx, &types.QueryRewardsRequest{Provider: "bad"})
	s.Require().Error(err)
}
