package keeper_test

import (
	"github.com/idlegpu/idlegpu/x/offer/types"
)

func (s *KeeperTestSuite) TestGenesisRoundTrip() {
	params := types.DefaultParams()
	params.PaymentDenoms = []string{"ugpu", "uusdc"}
	params.MaxOffersPerProvider = 4
	gs := &types.GenesisState{Params: params, NextOfferId: 1}

	s.Require().NoError(s.keeper.InitGenesis(s.ctx, gs))
	exported, err := s.keeper.ExportGenesis(s.ctx)
	s.Require().NoError(err)
	s.Require().Equal(gs, exported)
}

func (s *KeeperTestSuite) TestInitGenesisRejectsInvalidState() {
	params := types.DefaultParams()
	params.PaymentDenoms = nil

	err := s.keeper.InitGenesis(s.ctx, &types.GenesisState{Params: params})
	s.Require().ErrorIs(err, types.ErrInvalidGenesis)
	s.Require().ErrorContains(err, "payment_denoms must not be empty")

	got, err := s.keeper.Params.Get(s.ctx)
	s.Require().NoError(err)
	s.Require().Equal(marketParams(), got, "a rejected genesis writes nothing")
}
