package keeper_test

import (
	"testing"

	"github.com/cosmos/gogoproto/proto"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/internal/paramstest"
	"github.com/idlegpu/idlegpu/x/provider/types"
)

func (s *KeeperTestSuite) TestUpdateParams() {
	changed := types.DefaultParams()
	changed.MinStakePerGpu = sdk.NewInt64Coin("ugpu", 250_000_000)
	changed.UnbondingPeriodSeconds = 72 * 3600
	changed.SlashFraudBps = 7500
	changed.InitialReliabilityBps = 8000

	invalid := types.DefaultParams()
	invalid.SlashFraudBps = 20_000

	paramstest.RunUpdateParams(s.T(), paramstest.Harness[types.Params]{
		Setup: func(*testing.T) sdk.Context {
			s.SetupTest()
			return s.ctx
		},
		Update: func(ctx sdk.Context, authority string, params types.Params) error {
			_, err := s.msgServer.UpdateParams(ctx, &types.MsgUpdateParams{Authority: authority, Params: params})
			return err
		},
		Stored: func(ctx sdk.Context) (types.Params, error) { return s.keeper.Params.Get(ctx) },
		Event: func(msg proto.Message) (string, types.Params) {
			ev := msg.(*types.EventParamsUpdated)
			return ev.Authority, ev.Params
		},
		EventType:           proto.MessageName(&types.EventParamsUpdated{}),
		AddrCodec:           s.addrCodec,
		Authority:           s.authority,
		Default:             types.DefaultParams(),
		Changed:             changed,
		Invalid:             invalid,
		ErrInvalidAuthority: types.ErrInvalidAuthority,
		ErrInvalidParams:    types.ErrInvalidParams,
	})
}

// Params that would make the market unusable are refused, and the stored
// params stay as they were.
func (s *KeeperTestSuite) TestUpdateParamsRefusesUnusableMarkets() {
	s.register(0)
	s.bond(0, 100_000_000)
	for _, tc := range []struct {
		name   string
		update func(*types.Params)
	}{
		// Every new provider would start below every tier, forever.
		{"initial reliability 0", func(p *types.Params) { p.InitialReliabilityBps = 0 }},
		// Stake and unbonding entries are coins of the old denom: bonding,
		// unbonding and slashing would mix denoms.
		{"stake denom changed while stake is held", func(p *types.Params) { p.MinStakePerGpu = sdk.NewInt64Coin("uusdc", 100_000_000) }},
	} {
		s.Run(tc.name, func() {
			params := types.DefaultParams()
			tc.update(&params)
			before := s.snapshot()
			_, err := s.msgServer.UpdateParams(s.ctx, &types.MsgUpdateParams{Authority: s.authority, Params: params})
			s.Require().ErrorIs(err, types.ErrInvalidParams)
			s.Require().Equal(before, s.snapshot(), "a rejected message changes nothing")
		})
	}
}

// The stake denom is fixed: even with no stake held, a new denom is
// refused (registered providers hold zero coins of the old one).
func (s *KeeperTestSuite) TestUpdateParamsRefusesStakeDenomChange() {
	s.register(0)
	s.Require().True(s.moduleBalance().IsZero())
	params := types.DefaultParams()
	params.MinStakePerGpu = sdk.NewInt64Coin("uusdc", 100_000_000)
	_, err := s.msgServer.UpdateParams(s.ctx, &types.MsgUpdateParams{Authority: s.authority, Params: params})
	s.Require().ErrorIs(err, types.ErrInvalidParams)
	stored, err := s.keeper.Params.Get(s.ctx)
	s.Require().NoError(err)
	s.Require().Equal(types.DefaultParams(), stored)
}
