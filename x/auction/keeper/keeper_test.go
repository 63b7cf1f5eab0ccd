package keeper_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/suite"

	"cosmossdk.io/core/address"
	sdkmath "cosmossdk.io/math"

	sdk "github.com/cosmos/cosmos-sdk/types"
	authtypes "github.com/cosmos/cosmos-sdk/x/auth/types"

	"github.com/idlegpu/idlegpu/app"
	"github.com/idlegpu/idlegpu/app/apptesting"
	"github.com/idlegpu/idlegpu/x/auction/keeper"
	"github.com/idlegpu/idlegpu/x/auction/types"
	"github.com/idlegpu/idlegpu/x/base/chaincfg"
	offerkeeper "github.com/idlegpu/idlegpu/x/offer/keeper"
	offertypes "github.com/idlegpu/idlegpu/x/offer/types"
	providerkeeper "github.com/idlegpu/idlegpu/x/provider/keeper"
	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
	settlementtypes "github.com/idlegpu/idlegpu/x/settlement/types"
)

const (
	h100        = apptesting.H100
	certHash    = apptesting.CertHash
	stakePerGPU = 100_000_000
)

// KeeperTestSuite runs x/auction inside the real app: deposits move through
// x/bank, offers and GPUs through x/offer and x/provider.
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
	offers      offertypes.MsgServer
	accs        []apptesting.Account
	nextGPU     int
}

func TestKeeperTestSuite(t *testing.T) {
	suite.Run(t, new(KeeperTestSuite))
}

func (s *KeeperTestSuite) SetupTest() {
	c := apptesting.NewMarketChain(s.T(), 6, apptesting.MarketFunds())
	s.app, s.ctx, s.accs, s.addrCodec, s.authority = c.App, c.Ctx, c.Accs, c.AddrCodec, c.Authority
	s.keeper = s.app.AuctionKeeper
	s.msgServer = keeper.NewMsgServerImpl(s.keeper)
	s.queryServer = keeper.NewQuerier(s.keeper)
	s.providers = providerkeeper.NewMsgServerImpl(s.app.ProviderKeeper)
	s.offers = offerkeeper.NewMsgServerImpl(s.app.OfferKeeper)
	s.nextGPU = 0
	op := offertypes.DefaultParams()
	op.PaymentDenoms = []string{chaincfg.BondDenom, chaincfg.USDCDenom}
	s.Require().NoError(s.app.OfferKeeper.Params.Set(s.ctx, op))
}

// TearDownTest requires the market modules' invariants after every test.
func (s *KeeperTestSuite) TearDownTest() {
	s.Require().NoError(s.keeper.CheckInvariants(s.ctx))
	s.Require().NoError(s.app.OfferKeeper.CheckInvariants(s.ctx))
	s.Require().NoError(s.app.ProviderKeeper.CheckInvariants(s.ctx))
}

func (s *KeeperTestSuite) addr(bz []byte) string {
	str, err := s.addrCodec.BytesToString(bz)
	s.Require().NoError(err)
	return str
}

func (s *KeeperTestSuite) TestNewKeeperRejectsBadAuthority() {
	defer func() {
		err, ok := recover().(error)
		s.Require().True(ok, "NewKeeper must panic with an error")
		s.Require().ErrorContains(err, `invalid auction authority address "cosmos10d07y265gmmuvt4z0w9aw880jnsr700j6zn9kn"`)
	}()
	keeper.NewKeeper(nil, nil, s.addrCodec, nil, nil, nil, types.LeasePayee{Module: settlementtypes.ModuleName}, "cosmos10d07y265gmmuvt4z0w9aw880jnsr700j6zn9kn")
}

func (s *KeeperTestSuite) TestNewKeeperRejectsNoPayee() {
	defer func() {
		err, ok := recover().(error)
		s.Require().True(ok, "NewKeeper must panic with an error")
		s.Require().ErrorContains(err, "no module account to pay leases to")
	}()
	keeper.NewKeeper(nil, nil, s.addrCodec, nil, nil, nil, types.LeasePayee{}, s.addr(s.accs[0].Address))
}

// --- helpers ---

func (s *KeeperTestSuite) operator(i int) string { return s.addr(s.accs[i].Address) }

// fixture sends this test's messages at the suite's context.
func (s *KeeperTestSuite) fixture() apptesting.Market {
	return apptesting.Market{TB: s.T(), App: s.app, Ctx: s.ctx}
}

// provider registers account i in region with n H100s, bonds for them,
// sets its reliability and offers them at onDemand uusdc (preemptible at
// half). It returns the offer id.
func (s *KeeperTestSuite) provider(i int, region string, n int, reliability uint32, onDemand int64) uint64 {
	s.T().Helper()
	gpus := apptesting.GPUs(s.nextGPU+1, n, h100, apptesting.H100MemoryMib)
	s.nextGPU += n
	return s.fixture().Provide(s.operator(i), apptesting.Provider{
		Moniker: fmt.Sprintf("p%d", i), Region: region, Agents: []string{s.operator(5)}, GPUs: gpus,
		Stake: sdkmath.NewInt(int64(n) * stakePerGPU), ReliabilityBps: reliability, OnDemand: onDemand,
	})
}

func (s *KeeperTestSuite) setReliability(i int, bps uint32) {
	s.T().Helper()
	s.fixture().SetReliability(s.operator(i), bps)
}

// spec is a SILVER training job for gpus H100s, 2 h, at most maxPrice uusdc/GPU-h.
func spec(gpus uint32, maxPrice int64, window uint32) types.JobSpec {
	sp := apptesting.TrainingJob(gpus, maxPrice)
	sp.MinMemoryMib, sp.DurationSeconds, sp.BidWindowBlocks = 80_000, 7200, window
	return sp
}

func (s *KeeperTestSuite) post(renter int, sp types.JobSpec) uint64 {
	s.T().Helper()
	return s.fixture().PostJob(s.operator(renter), sp)
}

// endBlock runs x/auction's EndBlocker, then moves to the next block.
func (s *KeeperTestSuite) endBlock(d time.Duration) {
	s.T().Helper()
	s.Require().NoError(s.keeper.EndBlocker(s.ctx))
	s.ctx = s.ctx.WithBlockHeight(s.ctx.BlockHeight() + 1).WithBlockTime(s.ctx.BlockTime().Add(d))
}

func (s *KeeperTestSuite) job(id uint64) types.Job {
	s.T().Helper()
	j, err := s.keeper.Job(s.ctx, id)
	s.Require().NoError(err)
	return j
}

func (s *KeeperTestSuite) lease(id uint64) types.Lease {
	s.T().Helper()
	l, err := s.keeper.Lease(s.ctx, id)
	s.Require().NoError(err)
	return l
}

func (s *KeeperTestSuite) usdcOf(addr sdk.AccAddress) sdkmath.Int {
	return s.app.BankKeeper.GetBalance(s.ctx, addr, chaincfg.USDCDenom).Amount
}

func (s *KeeperTestSuite) renterUSDC(i int) sdkmath.Int { return s.usdcOf(s.accs[i].Address) }

func (s *KeeperTestSuite) escrowUSDC() sdkmath.Int {
	return s.usdcOf(authtypes.NewModuleAddress(types.EscrowAccount))
}

func (s *KeeperTestSuite) payeeUSDC() sdkmath.Int {
	return s.usdcOf(authtypes.NewModuleAddress(settlementtypes.ModuleName))
}

func usdc(n int64) *sdk.Coin { c := sdk.NewInt64Coin(chaincfg.USDCDenom, n); return &c }
