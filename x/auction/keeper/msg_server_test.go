package keeper_test

import (
	"testing"

	"github.com/cosmos/gogoproto/proto"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/auction/types"
	"github.com/idlegpu/idlegpu/x/internal/paramstest"
)

func (s *KeeperTestSuite) TestUpdateParams() {
	changed := types.DefaultParams()
	changed.ClearingRule = types.CLEARING_RULE_FIRST_PRICE
	changed.MaxJobDurationSeconds = 24 * 3600
	changed.TierMinReliability.SilverBps = 9000
	changed.IncludeStandingOffers = false

	invalid := types.DefaultParams()
	invalid.ClearingRule = types.CLEARING_RULE_UNSPECIFIED

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
