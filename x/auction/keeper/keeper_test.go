package keeper_test

import (
	"fmt"
	"testing"
	"time"

	cmtproto "github.com/cometbft/cometbft/proto/tendermint/types"
	"github.com/stretchr/testify/suite"

	"cosmossdk.io/core/address"
	sdkmath "cosmossdk.io/math"

	addresscodec "github.com/cosmos/cosmos-sdk/codec/address"
	sdk "github.com/cosmos/cosmos-sdk/types"
	authtypes "github.com/cosmos/cosmos-sdk/x/auth/types"
	govtypes "github.com/cosmos/cosmos-sdk/x/gov/types"

	"github.com/idlegpu/idlegpu/app"
	"github.com/idlegpu/idlegpu/app/apptesting"
	"github.com/idlegpu/idlegpu/x/auction/keeper"
	"github.com/idlegpu/idlegpu/x/auction/types"
	offerkeeper "github.com/idlegpu/idlegpu/x/offer/keeper"
	offertypes "github.com/idlegpu/idlegpu/x/offer/types"
	providerkeeper "github.com/idlegpu/idlegpu/x/provider/keeper"
	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
	settlementtypes "github.com/idlegpu/idlegpu/x/settlement/types"
)

// startBalance funds every test account in both denoms.
var startBalance = sdkmath.NewInt(1_000_000_000_000)

const (
	h100        = "NVIDIA H100 80GB HBM3"
	certHash    = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
	stakePerGPU = 100_000_000
	digest      = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	manifest    = "a3f1c2d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90"
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
	s.accs = apptesting.NewAccounts(6, sdk.NewCoins(sdk.NewCoin(app.BondDenom, startBalance), sdk.NewCoin(app.USDCDenom, startBalance)))
	s.app = apptesting.Setup(s.T(), s.accs)
	s.ctx = s.app.NewNextBlockContext(cmtproto.Header{
		ChainID: apptesting.ChainID,
		Height:  s.app.LastBlockHeight() + 1,
		Time:    apptesting.GenesisTime.Add(apptesting.BlockInterval * 2),
	})
	s.addrCodec = addresscodec.NewBech32Codec(app.Bech32Prefix)
	s.authority = s.addr(authtypes.NewModuleAddress(govtypes.ModuleName))
	s.keeper = s.app.AuctionKeeper
	s.msgServer = keeper.NewMsgServerImpl(s.keeper)
	s.queryServer = keeper.NewQuerier(s.keeper)
	s.providers = providerkeeper.NewMsgServerImpl(s.app.ProviderKeeper)
	s.offers = offerkeeper.NewMsgServerImpl(s.app.OfferKeeper)
	s.nextGPU = 0
	op := offertypes.DefaultParams()
	op.PaymentDenoms = []string{app.BondDenom, app.USDCDenom}
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
	keeper.NewKeeper(nil, nil, s.addrCodec, nil, nil, nil, settlementtypes.ModuleName, "cosmos10d07y265gmmuvt4z0w9aw880jnsr700j6zn9kn")
}

// --- helpers ---

func (s *KeeperTestSuite) operator(i int) string { return s.addr(s.accs[i].Address) }

// provider registers account i in region with n H100s, bonds for them,
// sets its reliability and offers them at onDemand uusdc (preemptible at
// half). It returns the offer id.
func (s *KeeperTestSuite) provider(i int, region string, n int, reliability uint32, onDemand int64) uint64 {
	s.T().Helper()
	_, err := s.providers.RegisterProvider(s.ctx, &providertypes.MsgRegisterProvider{
		Operator: s.operator(i), Moniker: fmt.Sprintf("p%d", i), Region: region,
		Endpoint: "https://gpu.example.com:8443", TlsCertSha256: certHash, Agents: []string{s.operator(5)},
	})
	s.Require().NoError(err)
	infos := make([]providertypes.GPUInfo, n)
	uuids := make([]string, n)
	for j := range infos {
		s.nextGPU++
		infos[j] = providertypes.GPUInfo{
			Uuid: fmt.Sprintf("GPU-%08x-1111-2222-3333-444455556666", s.nextGPU), Model: h100, MemoryMib: 81559,
			PciBusId: fmt.Sprintf("00000000:%02X:00.0", s.nextGPU%256), DriverVersion: "550.54.15", VbiosVersion: "96.00.89.00.01",
		}
		uuids[j] = infos[j].Uuid
	}
	_, err = s.providers.RegisterGPUs(s.ctx, &providertypes.MsgRegisterGPUs{Signer: s.operator(i), Provider: s.operator(i), Gpus: infos})
	s.Require().NoError(err)
	_, err = s.providers.Bond(s.ctx, &providertypes.MsgBond{Operator: s.operator(i), Amount: sdk.NewInt64Coin(app.BondDenom, int64(n)*stakePerGPU)})
	s.Require().NoError(err)
	s.setReliability(i, reliability)
	res, err := s.offers.CreateOffer(s.ctx, &offertypes.MsgCreateOffer{
		Signer: s.operator(i), Provider: s.operator(i), GpuUuids: uuids,
		Terms: offertypes.OfferTerms{
			PriceOnDemand: usdc(onDemand), PricePreemptible: usdc(onDemand / 2),
			Lanes: offertypes.AllLanes, Workloads: offertypes.AllWorkloads,
		},
	})
	s.Require().NoError(err)
	return res.OfferId
}

func (s *KeeperTestSuite) setReliability(i int, bps uint32) {
	s.T().Helper()
	rep, err := s.app.ProviderKeeper.Reputations.Get(s.ctx, s.accs[i].Address)
	s.Require().NoError(err)
	rep.ReliabilityBps = bps
	s.Require().NoError(s.app.ProviderKeeper.Reputations.Set(s.ctx, s.accs[i].Address, rep))
}

// spec is a SILVER training job for gpus H100s, 2 h, at most maxPrice uusdc/GPU-h.
func spec(gpus uint32, maxPrice int64, window uint32) types.JobSpec {
	return types.JobSpec{
		Image: "ghcr.io/acme/train:1.4", ImageDigest: digest, ManifestHash: manifest,
		Workload: offertypes.WORKLOAD_TRAINING, GpuCount: gpus, MinMemoryMib: 80_000, Models: []string{h100},
		Tier: types.TIER_SILVER, DurationSeconds: 7200, MaxPrice: *usdc(maxPrice), BidWindowBlocks: window,
	}
}

func (s *KeeperTestSuite) post(renter int, sp types.JobSpec) uint64 {
	s.T().Helper()
	res, err := s.msgServer.PostJob(s.ctx, &types.MsgPostJob{Renter: s.operator(renter), Spec: sp})
	s.Require().NoError(err)
	return res.JobId
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
	return s.app.BankKeeper.GetBalance(s.ctx, addr, app.USDCDenom).Amount
}

func (s *KeeperTestSuite) renterUSDC(i int) sdkmath.Int { return s.usdcOf(s.accs[i].Address) }

func (s *KeeperTestSuite) escrowUSDC() sdkmath.Int {
	return s.usdcOf(authtypes.NewModuleAddress(types.EscrowAccount))
}

func (s *KeeperTestSuite) payeeUSDC() sdkmath.Int {
	return s.usdcOf(authtypes.NewModuleAddress(settlementtypes.ModuleName))
}

func usdc(n int64) *sdk.Coin { c := sdk.NewInt64Coin(app.USDCDenom, n); return &c }
