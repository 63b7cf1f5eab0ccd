package keeper_test

import (
	"testing"

	"github.com/stretchr/testify/suite"

	"cosmossdk.io/core/address"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/app"
	"github.com/idlegpu/idlegpu/app/apptesting"
	"github.com/idlegpu/idlegpu/x/base/chaincfg"
	"github.com/idlegpu/idlegpu/x/provider/keeper"
	"github.com/idlegpu/idlegpu/x/provider/types"
)

// startBalance funds every test account: 1,000,000 GPU.
var startBalance = apptesting.StartBalance

// KeeperTestSuite runs the keeper inside the real app, so stake moves
// through the real x/bank and every amount, balance and supply asserted is
// the chain's own.
type KeeperTestSuite struct {
	suite.Suite

	app         *app.App
	ctx         sdk.Context
	addrCodec   address.Codec
	authority   string
	keeper      keeper.Keeper
	msgServer   types.MsgServer
	queryServer types.QueryServer
	accs        []apptesting.Account
}

func TestKeeperTestSuite(t *testing.T) {
	suite.Run(t, new(KeeperTestSuite))
}

func (s *KeeperTestSuite) SetupTest() {
	c := apptesting.NewMarketChain(s.T(), 5, sdk.NewCoins(sdk.NewCoin(chaincfg.BondDenom, startBalance)))
	s.app, s.ctx, s.accs, s.addrCodec, s.authority = c.App, c.Ctx, c.Accs, c.AddrCodec, c.Authority
	s.keeper = s.app.ProviderKeeper
	s.msgServer = keeper.NewMsgServerImpl(s.keeper)
	s.queryServer = keeper.NewQuerier(s.keeper)
}

// TearDownTest requires the module's invariants to hold after every test.
func (s *KeeperTestSuite) TearDownTest() {
	s.Require().NoError(s.keeper.CheckInvariants(s.ctx))
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
		s.Require().ErrorContains(err, `invalid provider authority address "cosmos10d07y265gmmuvt4z0w9aw880jnsr700j6zn9kn"`)
		s.Require().ErrorContains(err, "expected 'idle' got 'cosmos'")
	}()
	keeper.NewKeeper(nil, nil, s.addrCodec, nil, "cosmos10d07y265gmmuvt4z0w9aw880jnsr700j6zn9kn")
}
