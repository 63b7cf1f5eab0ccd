package keeper_test

import (
	"github.com/idlegpu/idlegpu/x/provider/types"
)

func (s *KeeperTestSuite) TestGenesisRoundTrip() {
	params := types.DefaultParams()
	params.JailDurationSeconds = 7200
	params.MaxGpusPerProvider = 64
	gs := &types.GenesisState{Params: params, NextUnbondingId: 1}

	s.Require().NoError(s.keeper.InitGenesis(s.ctx, gs))
	exported, err := s.keeper.ExportGenesis(s.ctx)
	s.Require().NoError(err)
	s.Require().Equal(gs, exported)
}

func (s *KeeperTestSuite) TestInitGenesisRejectsInvalidState() {
	params := types.DefaultParams()
	params.JailDurationSeconds = 0

	err := s.keeper.InitGenesis(s.ctx, &types.GenesisState{Params: params, NextUnbondingId: 1})
	s.Require().ErrorIs(err, types.ErrInvalidGenesis)
	s.Require().ErrorContains(err, "jail_duration_seconds must be greater than 0")

	got, err := s.keeper.Params.Get(s.ctx)
	s.Require().NoError(err)
	s.Require().Equal(types.DefaultParams(), got, "a rejected genesis writes nothing")
}
