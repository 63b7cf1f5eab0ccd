package simulation_test

import (
	"crypto/sha256"
	"encoding/binary"
	"math/rand"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/cosmos/cosmos-sdk/testutil/simsx"
	sdk "github.com/cosmos/cosmos-sdk/types"
	simtypes "github.com/cosmos/cosmos-sdk/types/simulation"

	"github.com/idlegpu/idlegpu/app"
	"github.com/idlegpu/idlegpu/app/apptesting"
	auctionkeeper "github.com/idlegpu/idlegpu/x/auction/keeper"
	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
	"github.com/idlegpu/idlegpu/x/base/chaincfg"
	offertypes "github.com/idlegpu/idlegpu/x/offer/types"
	"github.com/idlegpu/idlegpu/x/settlement/keeper"
	"github.com/idlegpu/idlegpu/x/settlement/simulation"
	"github.com/idlegpu/idlegpu/x/settlement/types"
)

// proofChain is a real app whose blocks, a minute apart, carry header
// hashes as CometBFT's do, with a sim provider (account 0, its agent
// account 1) and a renter (account 2).
type proofChain struct {
	t    *testing.T
	app  *app.App
	ctx  sdk.Context
	accs []apptesting.Account
}

const proofBlockStep = 60 * time.Second

func newProofChain(t *testing.T, params types.Params) *proofChain {
	t.Helper()
	return newProofChainOf(t, 3, params)
}

// newProofChainOf is a proofChain with n funded accounts.
func newProofChainOf(t *testing.T, n int, params types.Params) *proofChain {
	t.Helper()
	c := apptesting.NewMarketChain(t, n, apptesting.MarketFunds())
	pc := &proofChain{t: t, app: c.App, ctx: c.Ctx, accs: c.Accs}
	op := offertypes.DefaultParams()
	op.PaymentDenoms = []string{chaincfg.BondDenom, chaincfg.USDCDenom}
	require.NoError(t, pc.app.OfferKeeper.Params.Set(pc.ctx, op))
	require.NoError(t, pc.app.SettlementKeeper.Params.Set(pc.ctx, params))
	pc.beginBlock()
	return pc
}

func (c *proofChain) addr(i int) string { return c.accs[i].Address.String() }

func (c *proofChain) beginBlock() {
	h := sha256.Sum256(binary.BigEndian.AppendUint64([]byte("header"), uint64(c.ctx.BlockHeight())))
	c.ctx = c.ctx.WithHeaderHash(h[:])
	require.NoError(c.t, c.app.SettlementKeeper.BeginBlocker(c.ctx))
}

// nextBlock runs the EndBlockers in the app's order and begins the next block.
func (c *proofChain) nextBlock() { c.nextBlockAfter(proofBlockStep) }

// nextBlockAfter is nextBlock with the next block gap after this one: a
// gap beyond the params' expected_block_millis is time the chain lost.
func (c *proofChain) nextBlockAfter(gap time.Duration) {
	require.NoError(c.t, c.app.AuctionKeeper.EndBlocker(c.ctx))
	require.NoError(c.t, c.app.SettlementKeeper.EndBlocker(c.ctx))
	require.NoError(c.t, c.app.ProviderKeeper.EndBlocker(c.ctx))
	c.ctx = c.ctx.WithBlockHeight(c.ctx.BlockHeight() + 1).WithBlockTime(c.ctx.BlockTime().Add(gap))
	c.beginBlock()
}

// lease registers the provider with gpus H100s, has the renter post a job
// for all of them over duration, clears it and starts the lease as the agent.
func (c *proofChain) lease(gpus int, duration time.Duration) auctiontypes.Lease {
	m := apptesting.Market{TB: c.t, App: c.app, Ctx: c.ctx}
	m.Provide(c.addr(0), apptesting.Provider{
		Moniker: "sim", Region: "eu-de", Agents: []string{c.addr(1)},
		GPUs:  apptesting.GPUs(1, gpus, apptesting.H100, apptesting.H100MemoryMib),
		Stake: m.RequiredStake(uint32(gpus)), ReliabilityBps: 10_000, OnDemand: 1_000_000,
	})
	spec := apptesting.TrainingJob(uint32(gpus), 2_000_000)
	spec.DurationSeconds = uint64(duration / time.Second)
	jobID := m.PostJob(c.addr(2), spec)
	c.nextBlock()
	job, err := c.app.AuctionKeeper.Job(c.ctx, jobID)
	require.NoError(c.t, err)
	require.Equal(c.t, auctiontypes.JOB_STATUS_MATCHED, job.Status)
	_, err = auctionkeeper.NewMsgServerImpl(c.app.AuctionKeeper).StartLease(c.ctx, &auctiontypes.MsgStartLease{Signer: c.addr(1), LeaseId: job.LeaseIds[0]})
	require.NoError(c.t, err)
	l, err := c.app.AuctionKeeper.Lease(c.ctx, job.LeaseIds[0])
	require.NoError(c.t, err)
	return l
}

// simAccounts are the provider's operator and agent as the simulator knows
// them (the renter is not one: only the provider's side may sign proofs).
func (c *proofChain) simAccounts(ids ...int) []simtypes.Account {
	out := make([]simtypes.Account, len(ids))
	for i, id := range ids {
		a := c.accs[id]
		out[i] = simtypes.Account{PrivKey: a.PrivKey, PubKey: a.PrivKey.PubKey(), Address: a.Address, AddressBech32: a.Address.String()}
	}
	return out
}

// An agent that serves every other epoch: the factory proves the even
// epochs, each proof passes SubmitProofs, the odd ones are missed, never
// two in a row, and the lease fails on the miss-window rule alone.
func TestMsgSubmitProofsFactoryAlternates(t *testing.T) {
	params := types.DefaultParams()
	params.EpochSeconds, params.SampleIntervalSeconds, params.MinSamplesRatioBps, params.ProofGraceSeconds = 600, 5, 9000, 300
	params.ExpectedBlockMillis = uint64(proofBlockStep / time.Millisecond)
	params.MaxMissedEpochs, params.MissWindowEpochs = 2, 4
	require.NoError(t, params.Validate())
	c := newProofChain(t, params)
	l := c.lease(2, 8*600*time.Second)

	factory := simulation.MsgSubmitProofsFactory(c.app.SettlementKeeper, c.app.AuctionKeeper, c.app.ProviderKeeper)
	msgServer := keeper.NewMsgServerImpl(c.app.SettlementKeeper)
	r := rand.New(rand.NewSource(1))
	skips := map[string]int{}
	var proven []uint64
	for range 8 * 600 / 60 {
		c.nextBlock()
		testData := simsx.NewChainDataSource(c.ctx, r, c.app.AccountKeeper, c.app.BankKeeper, c.app.AccountKeeper.AddressCodec(), c.simAccounts(0, 1)...)
		reporter := simsx.NewBasicSimulationReporter()
		signers, msg := factory(c.ctx, testData, reporter)
		if reporter.IsSkipped() {
			skips[reporter.Comment()]++
			continue
		}
		require.Len(t, signers, 1)
		require.Contains(t, []string{c.addr(0), c.addr(1)}, signers[0].AddressBech32)
		require.NoError(t, msg.ValidateBasic())
		_, err := msgServer.SubmitProofs(c.ctx, msg)
		require.NoError(t, err, "epoch %d", msg.Proofs[0].Epoch)
		proven = append(proven, msg.Proofs[0].Epoch)
		prog, err := c.app.SettlementKeeper.Progress.Get(c.ctx, l.Id)
		require.NoError(t, err)
		require.LessOrEqual(t, prog.MissedInRow, uint32(1))
	}
	require.Equal(t, []uint64{0, 2}, proven)
	require.Positive(t, skips["only odd epochs await proofs: left to be missed"])
	prog, err := c.app.SettlementKeeper.Progress.Get(c.ctx, l.Id)
	require.NoError(t, err)
	require.Equal(t, uint64(2), prog.ProvenEpochs)
	require.Equal(t, uint64(2), prog.MissedEpochs) // epochs 1 and 3
	require.Equal(t, uint32(1), prog.MissedInRow)
	l, err = c.app.AuctionKeeper.Lease(c.ctx, l.Id)
	require.NoError(t, err)
	require.Equal(t, auctiontypes.LEASE_STATUS_FAILED, l.Status)
}

// Without a recorded header inside the window there is no challenge to
// bind to: the factory skips and the chain excuses the epoch.
func TestMsgSubmitProofsFactorySkipsWithoutHeader(t *testing.T) {
	params := types.DefaultParams()
	params.EpochSeconds, params.SampleIntervalSeconds, params.MinSamplesRatioBps, params.ProofGraceSeconds = 600, 5, 9000, 300
	params.ExpectedBlockMillis = uint64(proofBlockStep / time.Millisecond)
	c := newProofChain(t, params)
	l := c.lease(1, 2*600*time.Second)
	require.NoError(t, c.app.SettlementKeeper.Headers.Clear(c.ctx, nil))
	c.ctx = c.ctx.WithBlockTime(l.Start.Add(600 * time.Second))

	factory := simulation.MsgSubmitProofsFactory(c.app.SettlementKeeper, c.app.AuctionKeeper, c.app.ProviderKeeper)
	testData := simsx.NewChainDataSource(c.ctx, rand.New(rand.NewSource(1)), c.app.AccountKeeper, c.app.BankKeeper, c.app.AccountKeeper.AddressCodec(), c.simAccounts(1)...)
	reporter := simsx.NewBasicSimulationReporter()
	factory(c.ctx, testData, reporter)
	require.True(t, reporter.IsSkipped())
	require.Equal(t, "no recorded header inside the window, or shorter than a sample interval: the epoch will be excused", reporter.Comment())
}
