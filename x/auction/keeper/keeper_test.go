package keeper_test

import (
	"testing"

	"github.com/stretchr/testify/suite"

	"cosmossdk.io/core/address"

	addresscodec "github.com/cosmos/cosmos-sdk/codec/address"
	"github.com/cosmos/cosmos-sdk/runtime"
	storetypes "github.com/cosmos/cosmos-sdk/store/v2/types"
	"github.com/cosmos/cosmos-sdk/testutil"
	sdk "github.com/cosmos/cosmos-sdk/types"
	moduletestutil "github.com/cosmos/cosmos-sdk/types/module/testutil"
	authtypes "github.com/cosmos/cosmos-sdk/x/auth/types"
	govtypes "github.com/cosmos/cosmos-sdk/x/gov/types"

	"github.com/idlegpu/idlegpu/x/auction"
	"github.com/idlegpu/idlegpu/x/auction/keeper"
	"github.com/idlegpu/idlegpu/x/auction/types"
)

// KeeperTestSuite runs the keeper over a real store with the module's own
// codec; the other modules it will call are narrow interfaces, mocked per test.
type KeeperTestSuite struct {
	suite.Suite

	ctx         sdk.Context
	addrCodec   address.Codec
	authority   string
	keeper      keeper.Keeper
	msgServer   types.MsgServer
	queryServer types.QueryServer
}

func TestKeeperTestSuite(t *testing.T) {
	suite.Run(t, new(KeeperTestSuite))
}

func (s *KeeperTestSuite) SetupTest() {
	key := storetypes.NewKVStoreKey(types.StoreKey)
	tctx := testutil.DefaultContextWithDB(s.T(), key, storetypes.NewTransientStoreKey("transient_test"))
	s.ctx = tctx.Ctx.WithEventManager(sdk.NewEventManager())
	encCfg := moduletestutil.MakeTestEncodingConfig(auction.AppModule{})

	s.addrCodec = addresscodec.NewBech32Codec("idle")
	s.authority = s.addr(authtypes.NewModuleAddress(govtypes.ModuleName))
	s.keeper = keeper.NewKeeper(encCfg.Codec, runtime.NewKVStoreService(key), s.addrCodec, s.authority)
	s.msgServer = keeper.NewMsgServerImpl(s.keeper)
	s.queryServer = keeper.NewQuerier(s.keeper)
	s.Require().NoError(s.keeper.InitGenesis(s.ctx, types.DefaultGenesis()))
}

// addr renders an address with the chain's prefix.
func (s *KeeperTestSuite) addr(bz []byte) string {
	str, err := s.addrCodec.BytesToString(bz)
	s.Require().NoError(err)
	return str
}

func (s *KeeperTestSuite) TestNewKeeperRejectsBadAuthority() {
	// The gov module address with another chain's prefix: a wiring mistake.
	defer func() {
		err, ok := recover().(error)
		s.Require().True(ok, "NewKeeper must panic with an error")
		s.Require().ErrorContains(err, `invalid auction authority address "cosmos10d07y265gmmuvt4z0w9aw880jnsr700j6zn9kn"`)
		s.Require().ErrorContains(err, "expected 'idle' got 'cosmos'")
	}()
	keeper.NewKeeper(nil, nil, s.addrCodec, "cosmos10d07y265gmmuvt4z0w9aw880jnsr700j6zn9kn")
}
