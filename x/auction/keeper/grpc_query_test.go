package keeper_test

import (
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/idlegpu/idlegpu/x/auction/types"
)

func (s *KeeperTestSuite) TestQueryParams() {
	res, err := s.queryServer.Params(s.ctx, &types.QueryParamsRequest{})
	s.Require().NoError(err)
	s.Require().Equal(types.DefaultParams(), res.Params)

	_, err = s.queryServer.Params(s.ctx, nil)
	s.Require().Equal(codes.InvalidArgument, status.Code(err))
}

func (s *KeeperTestSuite) TestQueryJobsAndLeases() {
	s.provider(0, "eu-de", 2, 10000, 1_000_000)
	s.provider(1, "eu-de", 2, 10000, 1_200_000)
	renter := 3
	matched := s.post(renter, spec(2, 2_000_000, 0))
	s.endBlock(time.Second)
	open := s.post(renter, spec(1, 2_000_000, 10))

	job, err := s.queryServer.Job(s.ctx, &types.QueryJobRequest{Id: matched})
	s.Require().NoError(err)
	s.Require().Equal(types.JOB_STATUS_MATCHED, job.Job.Status)
	_, err = s.queryServer.Job(s.ctx, &types.QueryJobRequest{Id: 99})
	s.Require().Equal(codes.NotFound, status.Code(err))
	lease, err := s.queryServer.Lease(s.ctx, &types.QueryLeaseRequest{Id: 1})
	s.Require().NoError(err)
	s.Require().Equal("1200000uusdc", lease.Lease.Price.String(), "second price from p1")
	_, err = s.queryServer.Lease(s.ctx, &types.QueryLeaseRequest{Id: 2})
	s.Require().Equal(codes.NotFound, status.Code(err))

	jobs, err := s.queryServer.RenterJobs(s.ctx, &types.QueryRenterJobsRequest{Renter: s.operator(renter)})
	s.Require().NoError(err)
	s.Require().Len(jobs.Jobs, 2)
	jobs, err = s.queryServer.RenterJobs(s.ctx, &types.QueryRenterJobsRequest{Renter: s.operator(renter), Status: types.JOB_STATUS_OPEN})
	s.Require().NoError(err)
	s.Require().Len(jobs.Jobs, 1)
	s.Require().Equal(open, jobs.Jobs[0].Id)

	leases, err := s.queryServer.ProviderLeases(s.ctx, &types.QueryProviderLeasesRequest{Provider: s.operator(0), Status: types.LEASE_STATUS_PENDING})
	s.Require().NoError(err)
	s.Require().Len(leases.Leases, 1)
	leases, err = s.queryServer.ProviderLeases(s.ctx, &types.QueryProviderLeasesRequest{Provider: s.operator(1)})
	s.Require().NoError(err)
	s.Require().Empty(leases.Leases)
	leases, err = s.queryServer.RenterLeases(s.ctx, &types.QueryRenterLeasesRequest{Renter: s.operator(renter), Status: types.LEASE_STATUS_ACTIVE})
	s.Require().NoError(err)
	s.Require().Empty(leases.Leases)
	_, err = s.queryServer.RenterLeases(s.ctx, &types.QueryRenterLeasesRequest{Renter: "nope"})
	s.Require().Equal(codes.InvalidArgument, status.Code(err))
	bids, err := s.queryServer.JobBids(s.ctx, &types.QueryJobBidsRequest{JobId: open})
	s.Require().NoError(err)
	s.Require().Empty(bids.Bids)
}
