package keeper_test

import (
	"crypto/sha256"
	"encoding/binary"
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
	auctionkeeper "github.com/idlegpu/idlegpu/x/auction/keeper"
	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
	"github.com/idlegpu/idlegpu/x/base/chaincfg"
	offertypes "github.com/idlegpu/idlegpu/x/offer/types"
	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
	"github.com/idlegpu/idlegpu/x/settlement/keeper"
	"github.com/idlegpu/idlegpu/x/settlement/types"
)

const (
	h100     = apptesting.H100
	certHash = apptesting.CertHash
	digest   = apptesting.ImageDigest
	// blockStep is the time between the blocks the suite makes.
	blockStep = 60 * time.Second
	// agent is the account every test provider names as its agent.
	agent = 5
)

// KeeperTestSuite runs x/settlement inside the real app: leases come from
// x/auction's clearing, payments move escrow through x/bank, reputation and
// GPUs live in x/provider.
type KeeperTestSuite struct {
	suite.Suite

	app         *app.App
	ctx         sdk.Context
	addrCodec   address.Codec
	authority   string
	keeper      keeper.Keeper
	msgServer   types.MsgServer
	queryServer types.QueryServer
	auction     auctiontypes.MsgServer
	accs        []apptesting.Account
	nextGPU     int
}

func TestKeeperTestSuite(t *testing.T) {
	suite.Run(t, new(KeeperTestSuite))
}

func (s *KeeperTestSuite) SetupTest() {
	c := apptesting.NewMarketChain(s.T(), 6, apptesting.MarketFunds())
	s.app, s.ctx, s.accs, s.addrCodec, s.authority = c.App, c.Ctx, c.Accs, c.AddrCodec, c.Authority
	s.keeper = s.app.SettlementKeeper
	s.msgServer = keeper.NewMsgServerImpl(s.keeper)
	s.queryServer = keeper.NewQuerier(s.keeper)
	s.auction = auctionkeeper.NewMsgServerImpl(s.app.AuctionKeeper)
	s.nextGPU = 0
	op := offertypes.DefaultParams()
	op.PaymentDenoms = []string{chaincfg.BondDenom, chaincfg.USDCDenom}
	s.Require().NoError(s.app.OfferKeeper.Params.Set(s.ctx, op))
	// The production epoch and sampling (docs/design.md#params): 600 s epochs, a sample
	// every 5 s, 90 % of them required, 300 s of grace.
	s.Require().NoError(s.keeper.Params.Set(s.ctx, suiteParams()))
	s.beginBlock()
}

// TearDownTest requires every market module's invariants after each test.
func (s *KeeperTestSuite) TearDownTest() {
	s.Require().NoError(s.keeper.CheckInvariants(s.ctx))
	s.Require().NoError(s.app.AuctionKeeper.CheckInvariants(s.ctx))
	s.Require().NoError(s.app.OfferKeeper.CheckInvariants(s.ctx))
	s.Require().NoError(s.app.ProviderKeeper.CheckInvariants(s.ctx))
}

// suiteParams are the suite's x/settlement params: the production epoch
// and sampling (docs/design.md#params: 600 s epochs, a sample every 5 s,
// 90 % of them required, 300 s of grace), with the suite's blocks as the
// chain's normal ones — only a jump beyond blockStep is lost time.
func suiteParams() types.Params {
	sp := types.DefaultParams()
	sp.EpochSeconds, sp.SampleIntervalSeconds, sp.MinSamplesRatioBps, sp.ProofGraceSeconds = 600, 5, 9000, 300
	sp.ExpectedBlockMillis = uint64(blockStep / time.Millisecond)
	return sp
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
		s.Require().ErrorContains(err, `invalid settlement authority address "cosmos10d07y265gmmuvt4z0w9aw880jnsr700j6zn9kn"`)
	}()
	keeper.NewKeeper(nil, nil, s.addrCodec, nil, nil, nil, nil, authtypes.FeeCollectorName, "cosmos10d07y265gmmuvt4z0w9aw880jnsr700j6zn9kn")
}

// --- chain helpers ---

func (s *KeeperTestSuite) operator(i int) string { return s.addr(s.accs[i].Address) }

// fixture sends this test's messages at the suite's context.
func (s *KeeperTestSuite) fixture() apptesting.Market {
	return apptesting.Market{TB: s.T(), App: s.app, Ctx: s.ctx}
}

// headerHash is the suite's stand-in header hash of a height.
func headerHash(height int64) []byte {
	h := sha256.Sum256(binary.BigEndian.AppendUint64([]byte("header"), uint64(height)))
	return h[:]
}

// beginBlock runs x/settlement's BeginBlocker for the current block, with
// its header hash, as FinalizeBlock would.
func (s *KeeperTestSuite) beginBlock() {
	s.T().Helper()
	s.ctx = s.ctx.WithHeaderHash(headerHash(s.ctx.BlockHeight()))
	s.Require().NoError(s.keeper.BeginBlocker(s.ctx))
}

// nextBlock ends the block (x/auction's and x/settlement's EndBlockers,
// in the app's order) and begins the next, blockStep later.
func (s *KeeperTestSuite) nextBlock() {
	s.T().Helper()
	s.Require().NoError(s.app.AuctionKeeper.EndBlocker(s.ctx))
	s.Require().NoError(s.keeper.EndBlocker(s.ctx))
	s.ctx = s.ctx.WithBlockHeight(s.ctx.BlockHeight() + 1).WithBlockTime(s.ctx.BlockTime().Add(blockStep))
	s.beginBlock()
}

// until makes blocks until the block time reaches t.
func (s *KeeperTestSuite) until(t time.Time) {
	s.T().Helper()
	for s.ctx.BlockTime().Before(t) {
		s.nextBlock()
	}
}

// provider registers account i (agent: account 5) with n H100s, bonds, and
// offers them at price uusdc/GPU-h on demand.
func (s *KeeperTestSuite) provider(i, n int, price int64) {
	s.T().Helper()
	m := s.fixture()
	gpus := apptesting.GPUs(s.nextGPU+1, n, h100, apptesting.H100MemoryMib)
	s.nextGPU += n
	m.Provide(s.operator(i), apptesting.Provider{
		Moniker: fmt.Sprintf("p%d", i), Region: "eu-de", Agents: []string{s.operator(agent)}, GPUs: gpus,
		Stake: m.RequiredStake(uint32(n)),
		// A track record good enough for SILVER jobs.
		ReliabilityBps: 10_000, OnDemand: price,
	})
}

// trainingJob is a SILVER training job for gpus H100s over seconds, at most
// maxPrice uusdc per GPU-hour.
func trainingJob(gpus uint32, seconds uint64, maxPrice int64) auctiontypes.JobSpec {
	sp := apptesting.TrainingJob(gpus, maxPrice)
	sp.DurationSeconds = seconds
	return sp
}

// postJob posts spec for renter and returns the job id.
func (s *KeeperTestSuite) postJob(renter int, spec auctiontypes.JobSpec) uint64 {
	s.T().Helper()
	return s.fixture().PostJob(s.operator(renter), spec)
}

// lease has renter post a SILVER job for gpus H100s over duration at most
// maxPrice, clears it in this block (bid window 0), starts the lease as the
// provider's agent, and returns it ACTIVE.
func (s *KeeperTestSuite) lease(renter int, gpus uint32, duration time.Duration, maxPrice int64) auctiontypes.Lease {
	s.T().Helper()
	jobID := s.postJob(renter, trainingJob(gpus, uint64(duration/time.Second), maxPrice))
	s.nextBlock()
	job, err := s.app.AuctionKeeper.Job(s.ctx, jobID)
	s.Require().NoError(err)
	s.Require().Equal(auctiontypes.JOB_STATUS_MATCHED, job.Status)
	id := job.LeaseIds[0]
	_, err = s.auction.StartLease(s.ctx, &auctiontypes.MsgStartLease{Signer: s.operator(agent), LeaseId: id})
	s.Require().NoError(err)
	return s.getLease(id)
}

func (s *KeeperTestSuite) getLease(id uint64) auctiontypes.Lease {
	s.T().Helper()
	l, err := s.app.AuctionKeeper.Lease(s.ctx, id)
	s.Require().NoError(err)
	return l
}

// proof builds epoch k's proof of lease l as an honest agent would: every
// GPU sampled every sample interval across the window at powerW watts,
// bound to the first block header inside the window.
func (s *KeeperTestSuite) proof(l auctiontypes.Lease, k uint64, powerW uint64) types.ExecutionProof {
	s.T().Helper()
	params, err := s.keeper.Params.Get(s.ctx)
	s.Require().NoError(err)
	from, to, ok := types.EpochWindow(l.Start, l.DurationSeconds, params.EpochSeconds, k)
	s.Require().True(ok)
	var samples []types.Sample
	interval := params.SampleInterval()
	for g, u := range l.GpuUuids {
		for i, t := 0, from; !t.After(to); i, t = i+1, t.Add(interval) {
			samples = append(samples, types.Sample{
				GpuUuid: u, TimestampMs: t.UnixMilli(), UtilBps: 9500 + uint32(g), MemUsedMib: 70_000,
				EnergyMj: 1_000_000 + uint64(i)*powerW*uint64(interval/time.Millisecond), PowerMw: uint32(powerW * 1000),
				TempC: 65, SmClockMhz: 1980, Procs: 1,
			})
		}
	}
	h := s.challengeIn(from, to)
	p, _, err := types.BuildProof(types.ProofInput{
		LeaseID: l.Id, Epoch: k, WindowStart: from, WindowEnd: to, ChallengeHeight: h.Height, ChallengeHash: h.Hash,
		GPUs: l.GpuUuids, Samples: samples, ImageDigest: digest, AgentVersion: "test",
	})
	s.Require().NoError(err)
	return p
}

// challengeIn returns the first recorded header inside [from, to].
func (s *KeeperTestSuite) challengeIn(from, to time.Time) types.HeaderRecord {
	s.T().Helper()
	var found *types.HeaderRecord
	s.Require().NoError(s.keeper.Headers.Walk(s.ctx, nil, func(_ int64, h types.HeaderRecord) (bool, error) {
		if !h.Time.Before(from) && !h.Time.After(to) {
			found = &h
			return true, nil
		}
		return false, nil
	}))
	s.Require().NotNil(found, "no header inside [%s, %s]", from, to)
	return *found
}

func (s *KeeperTestSuite) submit(signer, provider int, proofs ...types.ExecutionProof) (*types.MsgSubmitProofsResponse, error) {
	return s.msgServer.SubmitProofs(s.ctx, &types.MsgSubmitProofs{Signer: s.operator(signer), Provider: s.operator(provider), Proofs: proofs})
}

func (s *KeeperTestSuite) usdc(addr sdk.AccAddress) sdkmath.Int {
	return s.app.BankKeeper.GetBalance(s.ctx, addr, chaincfg.USDCDenom).Amount
}

func (s *KeeperTestSuite) rewards(i int) sdk.Coins {
	r, err := s.keeper.ProviderRewards(s.ctx, s.accs[i].Address)
	s.Require().NoError(err)
	return r
}

func (s *KeeperTestSuite) progress(id uint64) types.LeaseProgress {
	s.T().Helper()
	p, err := s.keeper.Progress.Get(s.ctx, id)
	s.Require().NoError(err)
	return p
}

func (s *KeeperTestSuite) providerState(i int) providertypes.Provider {
	s.T().Helper()
	p, err := s.app.ProviderKeeper.Provider(s.ctx, s.accs[i].Address)
	s.Require().NoError(err)
	return p
}
