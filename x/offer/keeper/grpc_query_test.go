package keeper_test

import (
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/idlegpu/idlegpu/x/offer/types"
)

func (s *KeeperTestSuite) TestQueryParams() {
	res, err := s.queryServer.Params(s.ctx, &types.QueryParamsRequest{})
	s.Require().NoError(err)
	s.Require().Equal(marketParams(), res.Params)

	_, err = s.queryServer.Params(s.ctx, nil)
	s.Require().Equal(codes.InvalidArgument, status.Code(err))
}
