package keeper_test

import (
	"testing"

	"github.com/cosmos/gogoproto/proto"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/internal/paramstest"
	"github.com/idlegpu/idlegpu/x/settlement/types"
)

func (s *KeeperTestSuite) TestUpdateParams() {
	changed := types.DefaultParams()
	changed.EpochSeconds = 60
	changed.TakeRateBps = 500
	changed.ProofGraceSeconds = 30
	changed.GpuModels = changed.GpuModels[:2]
	s.SetupTest()
	changed.AuditMaxSeconds = 7200
	changed.AuditProveSeconds = 120
	changed.AuditSamples = 32

	invalid := types.DefaultParams()
	invalid.TakeRateBps = 10_000

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
		Default:             suiteParams(),
		Changed:             changed,
		Invalid:             invalid,
		ErrInvalidAuthority: types.ErrInvalidAuthority,
		ErrInvalidParams:    types.ErrInvalidParams,
	})
}
