package keeper_test

import (
	"time"

	"cosmossdk.io/collections"
	sdkmath "cosmossdk.io/math"

	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
	"github.com/idlegpu/idlegpu/x/settlement/types"
)

// TestTwoMissedEpochsFailTheLease: with max_missed_epochs = 2, the first
// epoch missed only costs reputation; the second fails the lease, refunds
// the renter everything, slashes slash_liveness of the stake and jails.
func (s *KeeperTestSuite) TestTwoMissedEpochsFailTheLease() {
	s.provider(0, 1, 1_000_000)
	renterBefore := s.usdc(s.accs[3].Address)
	l := s.lease(3, 1, 1800*time.Second, 2_000_000)
	stake := s.providerState(0).Stake.Amount
	pparams, err := s.app.ProviderKeeper.Params.Get(s.ctx)
	s.Require().NoError(err)

	_, end0, _ := types.EpochWindow(l.Start, l.DurationSeconds, 600, 0)
	s.until(end0.Add(300 * time.Second)) // due: declared missed in this block's EndBlock
	s.nextBlock()
	prog := s.progress(l.Id)
	s.Require().EqualValues(1, prog.NextEpoch)
	s.Require().EqualValues(1, prog.MissedInRow)
	s.Require().Equal(auctiontypes.LEASE_STATUS_ACTIVE, s.getLease(l.Id).Status)
	rep, err := s.app.ProviderKeeper.Reputations.Get(s.ctx, s.accs[0].Address)
	s.Require().NoError(err)
	s.Require().EqualValues(1, rep.MissedEpochs)

	_, end1, _ := types.EpochWindow(l.Start, l.DurationSeconds, 600, 1)
	s.until(end1.Add(300 * time.Second))
	s.nextBlock()
	final := s.getLease(l.Id)
	s.Require().Equal(auctiontypes.LEASE_STATUS_FAILED, final.Status)
	s.Require().True(final.Paid.Amount.IsZero())
	s.Require().Equal(renterBefore, s.usdc(s.accs[3].Address), "nothing was proven: the renter got all of it back")
	slashed := stake.MulRaw(int64(pparams.SlashLivenessBps)).QuoRaw(10_000)
	p := s.providerState(0)
	s.Require().Equal(stake.Sub(slashed), p.Stake.Amount)
	s.Require().Equal(providertypes.PROVIDER_STATUS_JAILED, p.Status)
	s.Require().Equal(s.ctx.BlockTime().Add(-blockStep).Add(pparams.JailDuration()), p.JailedUntil)
	s.Require().True(s.progress(l.Id).NextDue.IsZero(), "a failed lease is no longer watched")
	empty, err := s.keeper.Due.Iterate(s.ctx, nil)
	s.Require().NoError(err)
	s.Require().False(empty.Valid())
	empty.Close()
}

// TestMissThenProve: a missed epoch is never paid; the next proof pays only
// its own epoch and resets the row, but not the window: a second miss two
// epochs later fails the lease (two misses in the last twelve epochs),
// refunds the unproven time and punishes the provider.
func (s *KeeperTestSuite) TestMissThenProve() {
	s.provider(0, 1, 3_600_000) // 1,000 uusdc per GPU-second
	renterBefore := s.usdc(s.accs[3].Address)
	l := s.lease(3, 1, 1800*time.Second, 4_000_000)
	_, end0, _ := types.EpochWindow(l.Start, l.DurationSeconds, 600, 0)
	s.until(end0.Add(300 * time.Second))
	s.nextBlock() // epoch 0 missed
	_, end1, _ := types.EpochWindow(l.Start, l.DurationSeconds, 600, 1)
	s.until(end1)
	res, err := s.submit(agent, 0, s.proof(l, 1, 300))
	s.Require().NoError(err)
	s.Require().Equal("600000uusdc", res.Paid.String(), "epoch 1 alone: 600 s")
	s.Require().Zero(s.progress(l.Id).MissedInRow)

	_, end2, _ := types.EpochWindow(l.Start, l.DurationSeconds, 600, 2)
	s.until(end2.Add(300 * time.Second))
	s.nextBlock() // epoch 2 missed: one in a row, but two in the window
	final := s.getLease(l.Id)
	s.Require().Equal(auctiontypes.LEASE_STATUS_FAILED, final.Status)
	s.Require().Equal("2 of the last 12 epochs without a proof", final.Reason)
	s.Require().Equal(int64(600_000), final.Paid.Amount.Int64())
	s.Require().Equal(renterBefore.Sub(sdkmath.NewInt(600_000)), s.usdc(s.accs[3].Address))
	s.Require().Equal(providertypes.PROVIDER_STATUS_JAILED, s.providerState(0).Status)
	prog := s.progress(l.Id)
	s.Require().EqualValues(2, prog.MissedEpochs)
	s.Require().EqualValues(1, prog.MissedInRow)
	s.Require().EqualValues(0b101, prog.RecentMisses)
	s.Require().EqualValues(1, prog.ProvenEpochs)
	s.Require().Equal("588000uusdc", s.rewards(0).String(), "600,000 less 2 %")
}

// TestEpochsAreProvenInOrder: with a grace longer than an epoch, a later
// epoch can end before an earlier one falls due; it must wait its turn.
func (s *KeeperTestSuite) TestEpochsAreProvenInOrder() {
	params, err := s.keeper.Params.Get(s.ctx)
	s.Require().NoError(err)
	params.ProofGraceSeconds = 900
	s.Require().NoError(s.keeper.Params.Set(s.ctx, params))
	s.provider(0, 1, 1_000_000)
	l := s.lease(3, 1, 1800*time.Second, 2_000_000)
	_, end1, _ := types.EpochWindow(l.Start, l.DurationSeconds, 600, 1)
	s.until(end1)
	p0, p1 := s.proof(l, 0, 300), s.proof(l, 1, 300)
	_, err = s.submit(agent, 0, p1)
	s.Require().ErrorIs(err, types.ErrEpochOutOfOrder)
	_, err = s.submit(agent, 0, p0, p1) // both, in order, in one message
	s.Require().NoError(err)
	s.Require().EqualValues(2, s.progress(l.Id).NextEpoch)
}

// TestClosedLeaseIsNotWatched: a lease the renter closes leaves the
// liveness index; its provider is not charged misses for it.
func (s *KeeperTestSuite) TestClosedLeaseIsNotWatched() {
	s.provider(0, 1, 1_000_000)
	l := s.lease(3, 1, 1800*time.Second, 2_000_000)
	_, err := s.auction.CloseLease(s.ctx, &auctiontypes.MsgCloseLease{Signer: s.operator(3), LeaseId: l.Id, Reason: "done early"})
	s.Require().NoError(err)
	s.until(l.Start.Add(2 * time.Hour))
	rep, err := s.app.ProviderKeeper.Reputations.Get(s.ctx, s.accs[0].Address)
	s.Require().NoError(err)
	s.Require().Zero(rep.MissedEpochs)
	s.Require().True(s.progress(l.Id).NextDue.IsZero())
}

// TestProofsArePrunedAfterRetention: a proof record stays proof_retention
// epochs of its lease after acceptance (fraud can be reported until then),
// then EndBlock drops it.
func (s *KeeperTestSuite) TestProofsArePrunedAfterRetention() {
	params, err := s.keeper.Params.Get(s.ctx)
	s.Require().NoError(err)
	params.ProofRetention = 2
	s.Require().NoError(s.keeper.Params.Set(s.ctx, params))
	s.provider(0, 1, 1_000_000)
	l := s.lease(3, 1, 3600*time.Second, 2_000_000)
	_, end0, _ := types.EpochWindow(l.Start, l.DurationSeconds, 600, 0)
	s.until(end0)
	_, err = s.submit(agent, 0, s.proof(l, 0, 300))
	s.Require().NoError(err)
	rec, err := s.keeper.Proofs.Get(s.ctx, collections.Join(l.Id, uint64(0)))
	s.Require().NoError(err)
	s.Require().Equal(rec.SubmittedAt.Add(1200*time.Second), rec.PruneAt)

	s.until(rec.PruneAt.Add(-blockStep))
	s.nextBlock() // EndBlock at PruneAt − 1 step: still there
	_, err = s.keeper.Proofs.Get(s.ctx, collections.Join(l.Id, uint64(0)))
	s.Require().NoError(err)
	s.nextBlock()
	has, err := s.keeper.Proofs.Has(s.ctx, collections.Join(l.Id, uint64(0)))
	s.Require().NoError(err)
	s.Require().False(has)
	_, err = s.msgServer.ReportFraud(s.ctx, &types.MsgReportFraud{Reporter: s.operator(3), LeaseId: l.Id, Epoch: 0, Sample: types.Sample{GpuUuid: "GPU-x", TimestampMs: 1}})
	s.Require().ErrorIs(err, types.ErrProofNotFound)
}

// TestMissesPerBlockAreBounded: with max_misses_per_block = 1, two leases
// falling due together are declared missed one block apart, oldest first.
func (s *KeeperTestSuite) TestMissesPerBlockAreBounded() {
	params, err := s.keeper.Params.Get(s.ctx)
	s.Require().NoError(err)
	params.MaxMissesPerBlock = 1
	s.Require().NoError(s.keeper.Params.Set(s.ctx, params))
	s.provider(0, 2, 1_000_000)
	// Two leases started in one block: both fall due at the same instant.
	for _, renter := range []int{3, 4} {
		s.postJob(renter, trainingJob(1, 1800, 2_000_000))
	}
	s.nextBlock()
	for id := uint64(1); id <= 2; id++ {
		_, err := s.auction.StartLease(s.ctx, &auctiontypes.MsgStartLease{Signer: s.operator(agent), LeaseId: id})
		s.Require().NoError(err)
	}
	a, b := s.getLease(1), s.getLease(2)
	_, end0, _ := types.EpochWindow(b.Start, b.DurationSeconds, 600, 0)
	s.until(end0.Add(300 * time.Second)) // both overdue by now
	s.Require().NoError(s.keeper.EndBlocker(s.ctx))
	s.Require().EqualValues(1, s.progress(a.Id).MissedEpochs, "the older one first")
	s.Require().Zero(s.progress(b.Id).MissedEpochs)
	s.Require().NoError(s.keeper.EndBlocker(s.ctx))
	s.Require().EqualValues(1, s.progress(b.Id).MissedEpochs)
}
