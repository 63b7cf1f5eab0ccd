package keeper_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/suite"

	"cosmossdk.io/core/address"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/app"
	"github.com/idlegpu/idlegpu/app/apptesting"
	"github.com/idlegpu/idlegpu/x/offer/keeper"
	"github.com/idlegpu/idlegpu/x/offer/types"
	providerkeeper "github.com/idlegpu/idlegpu/x/provider/keeper"
	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
)

// KeeperTestSuite runs the keeper inside the real app: offers commit GPUs in
// the real x/provider, so stake, jailing and GPU ownership are the chain's own.
type KeeperTestSuite struct {
	suite.Suite

	app         *app.App
	ctx         sdk.Context
	addrCodec   address.Codec
	authority   string
	keeper      keeper.Keeper
	msgServer   types.MsgServer
	queryServer types.QueryServer
	providers   providertypes.MsgServer
	accs        []apptesting.Account
}

func TestKeeperTestSuite(t *testing.T) {
	suite.Run(t, new(KeeperTestSuite))
}

func (s *KeeperTestSuite) SetupTest() {
	c := apptesting.NewMarketChain(s.T(), 5, apptesting.MarketFunds())
	s.app, s.ctx, s.accs, s.addrCodec, s.authority = c.App, c.Ctx, c.Accs, c.AddrCodec, c.Authority
	s.keeper = s.app.OfferKeeper
	s.msgServer = keeper.NewMsgServerImpl(s.keeper)
	s.queryServer = keeper.NewQuerier(s.keeper)
	s.providers = providerkeeper.NewMsgServerImpl(s.app.ProviderKeeper)
	s.Require().NoError(s.keeper.Params.Set(s.ctx, marketParams()))
}

// TearDownTest requires both modules' invariants to hold after every test.
func (s *KeeperTestSuite) TearDownTest() {
	s.Require().NoError(s.keeper.CheckInvariants(s.ctx))
	s.Require().NoError(s.app.ProviderKeeper.CheckInvariants(s.ctx))
}

// addr renders an address with the chain's prefix.
func (s *KeeperTestSuite) addr(bz []byte) string {
	str, err := s.addrCodec.BytesToString(bz)
	s.Require().NoError(err)
	return str
}

// advance moves the block time forward by d.
func (s *KeeperTestSuite) advance(d time.Duration) {
	s.ctx = s.ctx.WithBlockTime(s.ctx.BlockTime().Add(d)).WithBlockHeight(s.ctx.BlockHeight() + 1)
}

func (s *KeeperTestSuite) TestNewKeeperRejectsBadAuthority() {
	// The gov module address with another chain's prefix: a wiring mistake.
	defer func() {
		err, ok := recover().(error)
		s.Require().True(ok, "NewKeeper must panic with an error")
		s.Require().ErrorContains(err, `invalid offer authority address "cosmos10d07y265gmmuvt4z0w9aw880jnsr700j6zn9kn"`)
		s.Require().ErrorContains(err, "expected 'idle' got 'cosmos'")
	}()
	keeper.NewKeeper(nil, nil, s.addrCodec, nil, "cosmos10d07y265gmmuvt4z0w9aw880jnsr700j6zn9kn")
}
