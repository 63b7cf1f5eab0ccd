package keeper_test

import (
	"testing"

	"github.com/cosmos/gogoproto/proto"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/internal/paramstest"
	"github.com/idlegpu/idlegpu/x/offer/types"
)

func (s *KeeperTestSuite) TestUpdateParams() {
	changed := types.DefaultParams()
	changed.PaymentDenoms = []string{"uusdc"}
	changed.MaxWindows = 8
	changed.MaxOffersPerProvider = 16

	invalid := types.DefaultParams()
	invalid.PaymentDenoms = []string{"uusdc", "ugpu"}

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
		Default:             marketParams(),
		Changed:             changed,
		Invalid:             invalid,
		ErrInvalidAuthority: types.ErrInvalidAuthority,
		ErrInvalidParams:    types.ErrInvalidParams,
	})
}

// TestPaymentDenomNeedsAStepPayment: governance cannot add a payment denom
// x/settlement has no reliability step payment for — tiny self-paid epochs
// in it would each move a full step — and the refused change moves nothing.
func (s *KeeperTestSuite) TestPaymentDenomNeedsAStepPayment() {
	before, err := s.keeper.Params.Get(s.ctx)
	s.Require().NoError(err)
	p := before
	p.PaymentDenoms = []string{"uatom", "ugpu", "uusdc"}
	_, err = s.msgServer.UpdateParams(s.ctx, &types.MsgUpdateParams{Authority: s.authority, Params: p})
	s.Require().ErrorIs(err, types.ErrInvalidParams)
	s.Require().ErrorContains(err, `reliability_step_payment has no amount for payment denom "uatom"`)
	after, err := s.keeper.Params.Get(s.ctx)
	s.Require().NoError(err)
	s.Require().Equal(before, after)
}
