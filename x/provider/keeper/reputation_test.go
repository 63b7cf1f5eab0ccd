package keeper_test

import (
	"github.com/idlegpu/idlegpu/x/provider/keeper"
	"github.com/idlegpu/idlegpu/x/provider/types"
)

// TestReliabilityEMA drives 1,000 epochs, missing those with i%10 == 3 or
// i%37 == 0, from 9000 bps. The expected value was computed independently
// (Python, the same integer formula): 8690 bps, 874 proven, 126 missed.
func (s *KeeperTestSuite) TestReliabilityEMA() {
	s.register(0)
	op := s.accs[0].Address
	for i := range 1000 {
		s.Require().NoError(s.keeper.RecordEpoch(s.ctx, op, !(i%10 == 3 || i%37 == 0)))
	}
	rel, err := s.keeper.Reliability(s.ctx, op)
	s.Require().NoError(err)
	s.Require().EqualValues(8690, rel)
	res, err := s.queryServer.Reputation(s.ctx, &types.QueryReputationRequest{Provider: s.operator(0)})
	s.Require().NoError(err)
	s.Require().Equal(types.Reputation{ReliabilityBps: 8690, ProvenEpochs: 874, MissedEpochs: 126}, res.Reputation)
}

// The integer EMA has fixed points short of the bounds: all proven settles at
// 9984 bps, all missed at 63 (r/64 rounds to 0 below 64).
func (s *KeeperTestSuite) TestReliabilityLimits() {
	up, down := uint32(9000), uint32(9000)
	for range 1000 {
		up = keeper.NextReliability(up, 10_000)
		down = keeper.NextReliability(down, 0)
	}
	s.Require().EqualValues(9984, up)
	s.Require().EqualValues(63, down)
	s.Require().EqualValues(10_000, keeper.NextReliability(10_000, 10_000), "a perfect record stays perfect")
	s.Require().EqualValues(0, keeper.NextReliability(0, 0))
}

func (s *KeeperTestSuite) TestRecordLeaseOutcome() {
	s.register(0)
	op := s.accs[0].Address
	for _, o := range []types.LeaseOutcome{
		types.LEASE_OUTCOME_COMPLETED, types.LEASE_OUTCOME_COMPLETED, types.LEASE_OUTCOME_FAILED, types.LEASE_OUTCOME_PREEMPTED,
	} {
		s.Require().NoError(s.keeper.RecordLeaseOutcome(s.ctx, op, o))
	}
	rep, err := s.keeper.Reputations.Get(s.ctx, op)
	s.Require().NoError(err)
	s.Require().Equal(types.Reputation{ReliabilityBps: 9000, LeasesCompleted: 2, LeasesFailed: 1, Preemptions: 1}, rep)
	s.requireEvent(&types.EventLeaseOutcomeRecorded{Provider: s.operator(0), Outcome: types.LEASE_OUTCOME_PREEMPTED})

	s.Require().ErrorIs(s.keeper.RecordLeaseOutcome(s.ctx, op, types.LEASE_OUTCOME_UNSPECIFIED), types.ErrInvalidLeaseOutcome)
	s.Require().ErrorIs(s.keeper.RecordLeaseOutcome(s.ctx, s.accs[1].Address, types.LEASE_OUTCOME_COMPLETED), types.ErrProviderNotFound)
	s.Require().ErrorIs(s.keeper.RecordEpoch(s.ctx, s.accs[1].Address, true), types.ErrProviderNotFound)
}

// Every reputation write is announced with the value written, so an indexer
// keeps reliability over time exactly as the chain computed it: at
// registration, after an epoch (9000 → 9016 proven, → 8876 missed) and
// after a lease outcome.
func (s *KeeperTestSuite) TestReputationChangedEvents() {
	s.register(0)
	op := s.accs[0].Address
	s.requireEvent(&types.EventReputationChanged{Provider: s.operator(0), Reputation: types.Reputation{ReliabilityBps: 9000}})
	s.Require().NoError(s.keeper.RecordEpoch(s.ctx, op, true))
	s.requireEvent(&types.EventReputationChanged{Provider: s.operator(0), Reputation: types.Reputation{ReliabilityBps: 9016, ProvenEpochs: 1}})
	s.Require().NoError(s.keeper.RecordEpoch(s.ctx, op, false))
	s.requireEvent(&types.EventReputationChanged{Provider: s.operator(0), Reputation: types.Reputation{ReliabilityBps: 8876, ProvenEpochs: 1, MissedEpochs: 1}})
	s.Require().NoError(s.keeper.RecordLeaseOutcome(s.ctx, op, types.LEASE_OUTCOME_COMPLETED))
	s.requireEvent(&types.EventReputationChanged{Provider: s.operator(0), Reputation: types.Reputation{ReliabilityBps: 8876, ProvenEpochs: 1, MissedEpochs: 1, LeasesCompleted: 1}})
}
