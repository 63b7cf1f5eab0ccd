package keeper_test

import (
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/cosmos/cosmos-sdk/types/query"

	"github.com/idlegpu/idlegpu/x/provider/types"
)

func (s *KeeperTestSuite) TestQueryParams() {
	res, err := s.queryServer.Params(s.ctx, &types.QueryParamsRequest{})
	s.Require().NoError(err)
	s.Require().Equal(types.DefaultParams(), res.Params)

	_, err = s.queryServer.Params(s.ctx, nil)
	s.Require().Equal(codes.InvalidArgument, status.Code(err))
}

func (s *KeeperTestSuite) TestQueries() {
	s.register(0, s.operator(4))
	s.register(1)
	s.register(2)
	s.bond(0, 100_000_000)
	uuids := s.registerGPUs(0, 0, 5)
	_, err := s.msgServer.Unbond(s.ctx, &types.MsgUnbond{Operator: s.operator(0), Amount: ugpu(7)})
	s.Require().NoError(err)

	s.Run("provider with its reputation", func() {
		res, err := s.queryServer.Provider(s.ctx, &types.QueryProviderRequest{Operator: s.operator(0)})
		s.Require().NoError(err)
		s.Require().Equal(s.provider(0), res.Provider)
		s.Require().Equal(types.Reputation{ReliabilityBps: 9000}, res.Reputation)
	})
	s.Run("providers, two per page", func() {
		var all []string
		var next []byte
		for page := 0; ; page++ {
			res, err := s.queryServer.Providers(s.ctx, &types.QueryProvidersRequest{Pagination: &query.PageRequest{Key: next, Limit: 2, CountTotal: page == 0}})
			s.Require().NoError(err)
			s.Require().LessOrEqual(len(res.Providers), 2)
			if page == 0 {
				s.Require().EqualValues(3, res.Pagination.Total)
			}
			for _, p := range res.Providers {
				all = append(all, p.Operator)
			}
			if next = res.Pagination.NextKey; next == nil {
				break
			}
		}
		s.Require().ElementsMatch([]string{s.operator(0), s.operator(1), s.operator(2)}, all)
	})
	s.Run("a provider's GPUs, in UUID order, two per page", func() {
		res, err := s.queryServer.ProviderGPUs(s.ctx, &types.QueryProviderGPUsRequest{Provider: s.operator(0), Pagination: &query.PageRequest{Limit: 2}})
		s.Require().NoError(err)
		s.Require().Equal(uuids[:2], []string{res.Gpus[0].Uuid, res.Gpus[1].Uuid})
		res, err = s.queryServer.ProviderGPUs(s.ctx, &types.QueryProviderGPUsRequest{Provider: s.operator(0), Pagination: &query.PageRequest{Key: res.Pagination.NextKey, Limit: 10}})
		s.Require().NoError(err)
		s.Require().Len(res.Gpus, 3)
		s.Require().Nil(res.Pagination.NextKey)
		other, err := s.queryServer.ProviderGPUs(s.ctx, &types.QueryProviderGPUsRequest{Provider: s.operator(1)})
		s.Require().NoError(err)
		s.Require().Empty(other.Gpus, "another provider's GPUs do not leak into the prefix")
	})
	s.Run("one GPU", func() {
		res, err := s.queryServer.GPU(s.ctx, &types.QueryGPURequest{Uuid: uuids[3]})
		s.Require().NoError(err)
		s.Require().Equal(s.operator(0), res.Gpu.Provider)
		s.Require().Equal(gpu(3).Fingerprint(), res.Gpu.Fingerprint)
	})
	s.Run("errors", func() {
		for _, tc := range []struct {
			name string
			call func() error
			code codes.Code
		}{
			{"unknown provider", func() error {
				_, err := s.queryServer.Provider(s.ctx, &types.QueryProviderRequest{Operator: s.operator(3)})
				return err
			}, codes.NotFound},
			{"malformed operator", func() error {
				_, err := s.queryServer.Provider(s.ctx, &types.QueryProviderRequest{Operator: "idle1bad"})
				return err
			}, codes.InvalidArgument},
			{"unknown GPU", func() error {
				_, err := s.queryServer.GPU(s.ctx, &types.QueryGPURequest{Uuid: gpu(77).Uuid})
				return err
			}, codes.NotFound},
			{"malformed UUID", func() error {
				_, err := s.queryServer.GPU(s.ctx, &types.QueryGPURequest{Uuid: "nope"})
				return err
			}, codes.InvalidArgument},
			{"reputation of nobody", func() error {
				_, err := s.queryServer.Reputation(s.ctx, &types.QueryReputationRequest{Provider: s.operator(3)})
				return err
			}, codes.NotFound},
			{"nil request", func() error {
				_, err := s.queryServer.Providers(s.ctx, nil)
				return err
			}, codes.InvalidArgument},
		} {
			s.Require().Equal(tc.code, status.Code(tc.call()), tc.name)
		}
	})
}
