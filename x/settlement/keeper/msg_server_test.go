package keeper_test

import (
	cmtproto "github.com/cometbft/cometbft/proto/tendermint/types"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/settlement/types"
)

func (s *KeeperTestSuite) TestUpdateParams() {
	changed := types.DefaultParams()
	changed.EpochSeconds = 60
	changed.TakeRateBps = 500
	changed.ProofGraceSeconds = 30
	changed.GpuModels = changed.GpuModels[:2]

	invalid := types.DefaultParams()
	invalid.TakeRateBps = 10_000

	stranger := s.addr([]byte("stranger____________"))
	councilAuthority := s.addr([]byte("council_____________"))

	testCases := []struct {
		name      string
		setup     func(ctx sdk.Context) sdk.Context
		msg       *types.MsgUpdateParams
		expErr    error
		expParams types.Params
	}{
		{
			name:      "gov authority replaces every param",
			msg:       &types.MsgUpdateParams{Authority: s.authority, Params: changed},
			expParams: changed,
		},
		{
			name:      "any other signer is rejected",
			msg:       &types.MsgUpdateParams{Authority: stranger, Params: changed},
			expErr:    types.ErrInvalidAuthority,
			expParams: types.DefaultParams(),
		},
		{
			name:      "empty authority is rejected",
			msg:       &types.MsgUpdateParams{Params: changed},
			expErr:    types.ErrInvalidAuthority,
			expParams: types.DefaultParams(),
		},
		{
			name:      "invalid params are rejected even from the authority",
			msg:       &types.MsgUpdateParams{Authority: s.authority, Params: invalid},
			expErr:    types.ErrInvalidParams,
			expParams: types.DefaultParams(),
		},
		{
			name: "an authority in consensus params replaces the keeper's",
			setup: func(ctx sdk.Context) sdk.Context {
				return ctx.WithConsensusParams(cmtproto.ConsensusParams{Authority: &cmtproto.AuthorityParams{Authority: councilAuthority}})
			},
			msg:       &types.MsgUpdateParams{Authority: s.authority, Params: changed},
			expErr:    types.ErrInvalidAuthority,
			expParams: types.DefaultParams(),
		},
		{
			name: "the consensus-params authority is accepted",
			setup: func(ctx sdk.Context) sdk.Context {
				return ctx.WithConsensusParams(cmtproto.ConsensusParams{Authority: &cmtproto.AuthorityParams{Authority: councilAuthority}})
			},
			msg:       &types.MsgUpdateParams{Authority: councilAuthority, Params: changed},
			expParams: changed,
		},
	}

	for _, tc := range testCases {
		s.Run(tc.name, func() {
			s.SetupTest()
			ctx := s.ctx
			if tc.setup != nil {
				ctx = tc.setup(ctx)
			}

			_, err := s.msgServer.UpdateParams(ctx, tc.msg)

			got, getErr := s.keeper.Params.Get(ctx)
			s.Require().NoError(getErr)
			s.Require().Equal(tc.expParams, got)
			events := ctx.EventManager().Events()
			if tc.expErr != nil {
				s.Require().ErrorIs(err, tc.expErr)
				s.Require().Empty(events, "a rejected change emits nothing")
				return
			}
			s.Require().NoError(err)
			s.Require().Len(events, 1)
			s.Require().Equal("idlegpu.settlement.v1.EventParamsUpdated", events[0].Type)
			var ev types.EventParamsUpdated
			s.Require().NoError(parseTypedEvent(events[0], &ev))
			s.Require().Equal(tc.msg.Authority, ev.Authority)
			s.Require().Equal(tc.expParams, ev.Params)
		})
	}
}
