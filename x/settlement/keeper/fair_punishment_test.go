package keeper_test

import (
	"time"

	sdkmath "cosmossdk.io/math"

	sdk "github.com/cosmos/cosmos-sdk/types"
	authtypes "github.com/cosmos/cosmos-sdk/x/auth/types"

	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
	"github.com/idlegpu/idlegpu/x/settlement/types"
)

// halt ends the current block and begins the next one d later: the chain
// made no block for d.
func (s *KeeperTestSuite) halt(d time.Duration) {
	s.T().Helper()
	s.Require().NoError(s.app.AuctionKeeper.EndBlocker(s.ctx))
	s.Require().NoError(s.keeper.EndBlocker(s.ctx))
	s.ctx = s.ctx.WithBlockHeight(s.ctx.BlockHeight() + 1).WithBlockTime(s.ctx.BlockTime().Add(d))
	s.beginBlock()
}

// requireUnharmed: provider 0 was paid exactly paid for the lease (renter
// 3 paid that much and no more), kept its stake, is not jailed, and has no
// miss and one completed lease on record.
func (s *KeeperTestSuite) requireUnharmed(final auctiontypes.Lease, paid, renterBefore, stake sdkmath.Int) {
	s.T().Helper()
	s.Require().Equal(paid, final.Paid.Amount)
	s.Require().Equal(renterBefore.Sub(paid), s.usdc(s.accs[3].Address), "the renter pays proven time only")
	p := s.providerState(0)
	s.Require().Equal(stake, p.Stake.Amount, "not slashed")
	s.Require().Equal(providertypes.PROVIDER_STATUS_ACTIVE, p.Status, "not jailed")
	rep, err := s.app.ProviderKeeper.Reputations.Get(s.ctx, s.accs[0].Address)
	s.Require().NoError(err)
	s.Require().Zero(rep.MissedEpochs)
	s.Require().EqualValues(1, rep.LeasesCompleted)
}

// usdcDue is floor(price × gpus × seconds / 3600).
func usdcDue(price, gpus, seconds int64) sdkmath.Int {
	return sdkmath.NewInt(price).MulRaw(gpus).MulRaw(seconds).QuoRaw(3600)
}

// TestHaltNeverSlashes: a 40-minute halt in the middle of a proven lease.
// The epoch the halt cut into is still proven after the restart (its due
// time moved by the downtime); the epoch whose window held no block is
// excused — neither paid nor missed. Nobody is slashed or jailed, and the
// renter pays exactly the proven time.
func (s *KeeperTestSuite) TestHaltNeverSlashes() {
	const price = 1_000_000
	s.provider(0, 1, price)
	renterBefore := s.usdc(s.accs[3].Address)
	l := s.lease(3, 1, 1800*time.Second, 2_000_000) // 3 epochs
	stake := s.providerState(0).Stake.Amount

	_, end0, _ := types.EpochWindow(l.Start, l.DurationSeconds, 600, 0)
	s.until(end0)
	_, err := s.submit(agent, 0, s.proof(l, 0, 500))
	s.Require().NoError(err)

	s.until(end0.Add(120 * time.Second)) // two blocks into epoch 1
	s.halt(40 * time.Minute)             // past epoch 1's due time and all of epoch 2
	s.nextBlock()
	s.Require().Equal(auctiontypes.LEASE_STATUS_ACTIVE, s.getLease(l.Id).Status, "the halt counts against nobody")
	s.Require().Zero(s.progress(l.Id).MissedEpochs)

	_, err = s.submit(agent, 0, s.proof(l, 1, 500)) // the agent catches up after the restart
	s.Require().NoError(err)
	s.until(s.progress(l.Id).NextDue)
	s.nextBlock()

	final := s.getLease(l.Id)
	s.Require().Equal(auctiontypes.LEASE_STATUS_COMPLETED, final.Status)
	prog := s.progress(l.Id)
	s.Require().EqualValues(2, prog.ProvenEpochs)
	s.Require().EqualValues(1, prog.ExcusedEpochs, "epoch 2 held no block")
	s.Require().Zero(prog.MissedEpochs)
	s.requireUnharmed(final, usdcDue(price, 1, 1200), renterBefore, stake)
}

// TestRenterCloseStillPaysEndedTime: a renter closing after an epoch ended
// (and mid-way through the next) does not get that work for free: the
// lease is CLOSING with its GPUs free, the provider proves the ended epoch
// and the partial one up to the close, and only then is the rest refunded.
func (s *KeeperTestSuite) TestRenterCloseStillPaysEndedTime() {
	const price = 1_000_000
	s.provider(0, 1, price)
	renterBefore := s.usdc(s.accs[3].Address)
	l := s.lease(3, 1, 1800*time.Second, 2_000_000)
	_, end0, _ := types.EpochWindow(l.Start, l.DurationSeconds, 600, 0)
	s.until(end0.Add(60 * time.Second))
	closedAt := s.ctx.BlockTime()
	_, err := s.auction.CloseLease(s.ctx, &auctiontypes.MsgCloseLease{Signer: s.operator(3), LeaseId: l.Id, Reason: "done"})
	s.Require().NoError(err)
	closing := s.getLease(l.Id)
	s.Require().Equal(auctiontypes.LEASE_STATUS_CLOSING, closing.Status)
	s.Require().Equal(auctiontypes.LEASE_STATUS_CLOSED, closing.FinalStatus)
	s.Require().Empty(s.offerOf(l.GpuUuids[0]).OccupiedGpuUuids, "the renter's GPUs are free at once")
	ran := uint64(closedAt.Sub(l.Start) / time.Second)
	s.Require().EqualValues(ran, s.progress(l.Id).DurationSeconds, "the clock stopped at the close")

	cut := l
	cut.DurationSeconds = ran
	_, err = s.submit(agent, 0, s.proof(cut, 0, 500))
	s.Require().NoError(err, "the ended epoch is still provable")
	s.nextBlock()
	_, err = s.submit(agent, 0, s.proof(cut, 1, 500))
	s.Require().NoError(err, "so is the partial one up to the close")

	final := s.getLease(l.Id)
	s.Require().Equal(auctiontypes.LEASE_STATUS_CLOSED, final.Status)
	paid := usdcDue(price, 1, int64(ran))
	s.Require().Equal(paid, final.Paid.Amount)
	s.Require().Equal(renterBefore.Sub(paid), s.usdc(s.accs[3].Address))
	job, err := s.app.AuctionKeeper.Job(s.ctx, final.JobId)
	s.Require().NoError(err)
	s.Require().Equal(auctiontypes.JOB_STATUS_CLOSED, job.Status)
	s.Require().True(job.Deposit.IsPositive(), "the deposit stays readable")
}

// TestSmallEpochFeesAreExact: fifty epochs paying 30 units each take
// exactly 2 % of the 1,500 in fees (floored per epoch they took 0).
func (s *KeeperTestSuite) TestSmallEpochFeesAreExact() {
	s.provider(0, 1, 180) // 180 per GPU-hour: 30 per 600 s epoch
	feeAddr := authtypes.NewModuleAddress(authtypes.FeeCollectorName)
	feesBefore := s.usdc(feeAddr)
	l := s.lease(3, 1, 50*600*time.Second, 180)
	for k := range uint64(50) {
		_, to, _ := types.EpochWindow(l.Start, l.DurationSeconds, 600, k)
		s.until(to)
		_, err := s.submit(agent, 0, s.proof(l, k, 500))
		s.Require().NoError(err, "epoch %d", k)
	}
	s.Require().Equal(auctiontypes.LEASE_STATUS_COMPLETED, s.getLease(l.Id).Status)
	s.Require().Equal(sdkmath.NewInt(1500), s.getLease(l.Id).Paid.Amount)
	s.Require().Equal(sdkmath.NewInt(30), s.usdc(feeAddr).Sub(feesBefore))
	s.Require().Equal(sdkmath.NewInt(1470), s.rewards(0).AmountOf("uusdc"))
}

// TestProviderEarlyCloseCostsReliability: a provider walking away from a
// SILVER lease is not slashed, but its reliability drops like a missed
// epoch and the lease counts as failed.
func (s *KeeperTestSuite) TestProviderEarlyCloseCostsReliability() {
	s.provider(0, 1, 1_000_000)
	l := s.lease(3, 1, 1800*time.Second, 2_000_000)
	stake := s.providerState(0).Stake.Amount
	before, err := s.app.ProviderKeeper.Reputations.Get(s.ctx, s.accs[0].Address)
	s.Require().NoError(err)
	_, err = s.auction.CloseLease(s.ctx, &auctiontypes.MsgCloseLease{Signer: s.operator(agent), LeaseId: l.Id, Reason: "need the GPU"})
	s.Require().NoError(err)
	after, err := s.app.ProviderKeeper.Reputations.Get(s.ctx, s.accs[0].Address)
	s.Require().NoError(err)
	s.Require().Equal(before.ReliabilityBps-before.ReliabilityBps/64, after.ReliabilityBps)
	s.Require().Equal(before.MissedEpochs+1, after.MissedEpochs)
	s.Require().Equal(before.LeasesFailed+1, after.LeasesFailed)
	s.Require().Equal(stake, s.providerState(0).Stake.Amount, "an honest exit is not slashed")
	job, err := s.app.AuctionKeeper.Job(s.ctx, l.JobId)
	s.Require().NoError(err)
	s.Require().Equal(auctiontypes.JOB_STATUS_INTERRUPTED, job.Status)
}

// TestParamChangeDoesNotStrandLease: governance shortens epochs, grace and
// sampling while a lease runs; the lease is judged by the params it
// started with, and its proofs still find their challenge headers.
func (s *KeeperTestSuite) TestParamChangeDoesNotStrandLease() {
	s.provider(0, 1, 1_000_000)
	l := s.lease(3, 1, 1200*time.Second, 2_000_000)
	params, err := s.keeper.Params.Get(s.ctx)
	s.Require().NoError(err)
	short := params
	short.EpochSeconds, short.ProofGraceSeconds, short.SampleIntervalSeconds, short.MinSamplesRatioBps = 60, 10, 1, 10_000
	_, err = s.msgServer.UpdateParams(s.ctx, &types.MsgUpdateParams{Authority: s.authority, Params: short})
	s.Require().NoError(err)
	for k := range uint64(2) {
		_, to, _ := types.EpochWindow(l.Start, l.DurationSeconds, 600, k)
		s.until(to.Add(4 * blockStep)) // well past the new grace, inside the lease's own
		s.Require().NoError(s.keeper.Params.Set(s.ctx, params))
		proof := s.proof(l, k, 500) // built with the lease's 5 s sampling
		s.Require().NoError(s.keeper.Params.Set(s.ctx, short))
		_, err = s.submit(agent, 0, proof)
		s.Require().NoError(err, "epoch %d", k)
	}
	s.Require().Equal(auctiontypes.LEASE_STATUS_COMPLETED, s.getLease(l.Id).Status)
	s.Require().Zero(s.progress(l.Id).MissedEpochs)
}

// TestSelfDealingBuysNoFreeReliability: a provider renting its own GPU in
// tiny epochs pays the exact fee and gains no reliability (each epoch
// weighs what it paid); gaining a full step takes an epoch paying
// reliability_step_payment, whose fee is the take rate of it.
func (s *KeeperTestSuite) TestSelfDealingBuysNoFreeReliability() {
	s.provider(0, 1, 180) // 30 uusdc per 600 s epoch
	feeAddr := authtypes.NewModuleAddress(authtypes.FeeCollectorName)
	feesBefore := s.usdc(feeAddr)
	l := s.lease(0, 1, 50*600*time.Second, 180) // the provider rents its own GPU
	rep, err := s.app.ProviderKeeper.Reputations.Get(s.ctx, s.accs[0].Address)
	s.Require().NoError(err)
	rep.ReliabilityBps = 9000 // below a perfect record: room to gain
	s.Require().NoError(s.app.ProviderKeeper.Reputations.Set(s.ctx, s.accs[0].Address, rep))
	for k := range uint64(50) {
		_, to, _ := types.EpochWindow(l.Start, l.DurationSeconds, 600, k)
		s.until(to)
		_, err := s.submit(agent, 0, s.proof(l, k, 500))
		s.Require().NoError(err, "epoch %d", k)
	}
	rep, err = s.app.ProviderKeeper.Reputations.Get(s.ctx, s.accs[0].Address)
	s.Require().NoError(err)
	s.Require().EqualValues(9000, rep.ReliabilityBps, "50 epochs paying 30 units each buy nothing")
	s.Require().EqualValues(50, rep.ProvenEpochs)
	s.Require().Equal(sdkmath.NewInt(30), s.usdc(feeAddr).Sub(feesBefore), "and cost the exact fee")

	params, err := s.keeper.Params.Get(s.ctx)
	s.Require().NoError(err)
	step := params.ReliabilityStepPayment.AmountOf("uusdc")
	s.Require().Equal(uint32(10_000), params.ReliabilityWeight(sdk.NewCoin("uusdc", step)))
	s.Require().Equal(uint32(5_000), params.ReliabilityWeight(sdk.NewCoin("uusdc", step.QuoRaw(2))))
	s.Require().Zero(params.ReliabilityWeight(sdk.NewInt64Coin("unlisted", 1)), "a denom without a step payment buys nothing")
}

// TestProofAfterAHaltExcusesTheEmptyWindow: a halt swallowed epoch 1's
// whole window, so no proof of it can exist. Epochs are proven in order,
// and epoch 1's excuse came only at its due time, which the halt's lost
// time moved to epoch 2's own due time: the honest agent, its proof of
// epoch 2 refused until then, had epoch 2 missed. A proof of epoch 2 now
// excuses the empty window before it at once, and the lease completes
// with nothing missed, paying exactly the three proven epochs.
func (s *KeeperTestSuite) TestProofAfterAHaltExcusesTheEmptyWindow() {
	const price = 1_000_000
	s.provider(0, 1, price)
	renterBefore := s.usdc(s.accs[3].Address)
	l := s.lease(3, 1, 2400*time.Second, 2_000_000) // 4 epochs
	stake := s.providerState(0).Stake.Amount
	_, end0, _ := types.EpochWindow(l.Start, l.DurationSeconds, 600, 0)
	_, end2, _ := types.EpochWindow(l.Start, l.DurationSeconds, 600, 2)
	_, end3, _ := types.EpochWindow(l.Start, l.DurationSeconds, 600, 3)

	s.until(end0.Add(-blockStep))
	s.halt(12 * time.Minute) // no block from end0 - 60 s to end1 + 60 s
	_, err := s.submit(agent, 0, s.proof(l, 0, 500))
	s.Require().NoError(err, "epoch 0's due moved with the halt")

	s.until(end2)
	_, err = s.submit(agent, 0, s.proof(l, 2, 500))
	s.Require().NoError(err, "epoch 1's window held no block: proving epoch 2 excuses it")
	prog := s.progress(l.Id)
	s.Require().EqualValues(3, prog.NextEpoch)
	s.Require().EqualValues(2, prog.ProvenEpochs)
	s.Require().EqualValues(1, prog.ExcusedEpochs)
	s.Require().Zero(prog.MissedEpochs)

	s.until(end3)
	_, err = s.submit(agent, 0, s.proof(l, 3, 500))
	s.Require().NoError(err)
	final := s.getLease(l.Id)
	s.Require().Equal(auctiontypes.LEASE_STATUS_COMPLETED, final.Status)
	s.requireUnharmed(final, usdcDue(price, 1, 1800), renterBefore, stake)
}

// TestOnlyAnEmptyWindowIsSkipped: a provider cannot skip an epoch it did
// not serve by proving the next one. Epoch 1's window held blocks, so the
// proof of epoch 2 is refused out of order and changes nothing; and a
// window whose only block is at its very end is not empty either (that
// block is epoch 1's challenge).
func (s *KeeperTestSuite) TestOnlyAnEmptyWindowIsSkipped() {
	params, err := s.keeper.Params.Get(s.ctx)
	s.Require().NoError(err)
	params.ProofGraceSeconds = 900 // epoch 2 ends before epoch 1 is due
	s.Require().NoError(s.keeper.Params.Set(s.ctx, params))
	s.provider(0, 2, 1_000_000)
	l := s.lease(3, 1, 2400*time.Second, 2_000_000)
	_, end0, _ := types.EpochWindow(l.Start, l.DurationSeconds, 600, 0)
	_, end1, _ := types.EpochWindow(l.Start, l.DurationSeconds, 600, 1)
	_, end2, _ := types.EpochWindow(l.Start, l.DurationSeconds, 600, 2)
	s.until(end0)
	_, err = s.submit(agent, 0, s.proof(l, 0, 500))
	s.Require().NoError(err)
	s.until(end2)
	s.Require().True(end1.Add(900*time.Second).After(s.ctx.BlockTime()), "epoch 1 is not due yet")
	_, err = s.submit(agent, 0, s.proof(l, 2, 500))
	s.Require().ErrorIs(err, types.ErrEpochOutOfOrder)
	s.Require().ErrorContains(err, "prove epoch 1 first")
	prog := s.progress(l.Id)
	s.Require().EqualValues(1, prog.NextEpoch)
	s.Require().Zero(prog.ExcusedEpochs)

	// A second lease whose epoch 1 holds one block, at its end.
	m := s.lease(3, 1, 2400*time.Second, 2_000_000)
	_, mEnd0, _ := types.EpochWindow(m.Start, m.DurationSeconds, 600, 0)
	_, mEnd1, _ := types.EpochWindow(m.Start, m.DurationSeconds, 600, 1)
	_, mEnd2, _ := types.EpochWindow(m.Start, m.DurationSeconds, 600, 2)
	s.until(mEnd0.Add(-blockStep))
	s.halt(mEnd1.Sub(s.ctx.BlockTime())) // the next block is at end1 exactly
	s.Require().Equal(mEnd1, s.ctx.BlockTime())
	_, err = s.submit(agent, 0, s.proof(m, 0, 500))
	s.Require().NoError(err)
	s.until(mEnd2)
	_, err = s.submit(agent, 0, s.proof(m, 2, 500))
	s.Require().ErrorIs(err, types.ErrEpochOutOfOrder, "window 1 holds the block at its end")
	_, err = s.submit(agent, 0, s.proof(m, 1, 500), s.proof(m, 2, 500))
	s.Require().NoError(err, "and that block is epoch 1's challenge")
	s.Require().Zero(s.progress(m.Id).ExcusedEpochs)
}
