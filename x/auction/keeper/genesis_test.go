package keeper_test

import (
	"github.com/idlegpu/idlegpu/x/auction/types"
)

func (s *KeeperTestSuite) TestGenesisRoundTrip() {
	params := types.DefaultParams()
	params.DefaultBidWindowBlocks = 0
	params.StartTimeoutSeconds = 1800
	gs := &types.GenesisState{Params: params, NextJobId: 1, NextLeaseId: 1, NextBidSeq: 1}

	s.Require().NoError(s.keeper.InitGenesis(s.ctx, gs))
	exported, err := s.keeper.ExportGenesis(s.ctx)
	s.Require().NoError(err)
	s.Require().Equal(gs, exported)
}

func (s *KeeperTestSuite) TestInitGenesisRejectsInvalidState() {
	params := types.DefaultParams()
	params.StartTimeoutSeconds = 0

	err := s.keeper.InitGenesis(s.ctx, &types.GenesisState{Params: params})
	s.Require().ErrorIs(err, types.ErrInvalidGenesis)
	s.Require().ErrorContains(err, "start_timeout_seconds must be greater than 0")

	got, err := s.keeper.Params.Get(s.ctx)
	s.Require().NoError(err)
	s.Require().Equal(types.DefaultParams(), got, "a rejected genesis writes nothing")
}
