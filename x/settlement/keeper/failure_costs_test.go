package keeper_test

import (
	"os"
	"regexp"
	"strings"
	"time"

	"cosmossdk.io/collections"
	sdkmath "cosmossdk.io/math"

	sdk "github.com/cosmos/cosmos-sdk/types"
	authtypes "github.com/cosmos/cosmos-sdk/x/auth/types"

	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
	"github.com/idlegpu/idlegpu/x/settlement/types"
)

// The failure-cost table (docs/design.md#failure-costs-and-fees): each way
// a provider can fail a renter, played on the table's lease — one H100 at
// 2 USDC per GPU-hour for twelve 600 s epochs (4,000,000 uusdc), the
// provider at reliability 10,000 — with the outcome read against the row
// the docs print. A row and its scenario cannot drift apart.

// costRow is one failure's outcome: what the table prints.
type costRow struct {
	reliability uint32
	failed      uint64
	completed   uint64
	paid        int64
	slashedBps  uint32
}

const (
	tablePrice    = 2_000_000 // uusdc per GPU-hour
	tableEpochs   = 12
	tableDuration = tableEpochs * 600 * time.Second
)

// tableLease is the table's lease, ACTIVE.
func (s *KeeperTestSuite) tableLease() auctiontypes.Lease {
	s.provider(0, 1, tablePrice)
	return s.lease(3, 1, tableDuration, tablePrice)
}

// tableLeaseProven is the table's lease with its first n epochs proven,
// and the provider's stake before them.
func (s *KeeperTestSuite) tableLeaseProven(n uint64) (auctiontypes.Lease, sdkmath.Int) {
	s.T().Helper()
	l := s.tableLease()
	before := s.providerState(0).Stake.Amount
	for k := range n {
		s.proveEpoch(l, k)
	}
	return l, before
}

// proveEpoch submits epoch k's proof once its window has ended.
func (s *KeeperTestSuite) proveEpoch(l auctiontypes.Lease, k uint64) {
	s.T().Helper()
	_, to, _ := types.EpochWindow(l.Start, l.DurationSeconds, 600, k)
	s.until(to)
	_, err := s.submit(agent, 0, s.proof(l, k, 500))
	s.Require().NoError(err, "epoch %d", k)
}

// skip lets epoch k go unproven until it is settled.
func (s *KeeperTestSuite) skip(l auctiontypes.Lease, k uint64) {
	s.T().Helper()
	_, to, _ := types.EpochWindow(l.Start, l.DurationSeconds, 600, k)
	s.until(to.Add(300 * time.Second))
	s.nextBlock()
}

// outcome reads the provider's record and the lease's pay after a scenario.
func (s *KeeperTestSuite) outcome(leaseID uint64, stakeBefore sdkmath.Int) costRow {
	s.T().Helper()
	rep, err := s.app.ProviderKeeper.Reputations.Get(s.ctx, s.accs[0].Address)
	s.Require().NoError(err)
	stake := s.providerState(0).Stake.Amount
	return costRow{
		reliability: rep.ReliabilityBps, failed: rep.LeasesFailed, completed: rep.LeasesCompleted,
		paid:       s.getLease(leaseID).Paid.Amount.Int64(),
		slashedBps: uint32(stakeBefore.Sub(stake).MulRaw(10_000).Quo(stakeBefore).Int64()),
	}
}

// failureScenarios plays each row of the table from a fresh chain.
func (s *KeeperTestSuite) failureScenarios() map[string]func() costRow {
	stake := func() sdkmath.Int { return s.providerState(0).Stake.Amount }
	return map[string]func() costRow{
		"refuse": func() costRow {
			s.provider(0, 1, tablePrice)
			before := stake()
			jobID := s.postJob(3, trainingJob(1, uint64(tableDuration/time.Second), tablePrice))
			s.nextBlock()
			job, err := s.app.AuctionKeeper.Job(s.ctx, jobID)
			s.Require().NoError(err)
			_, err = s.auction.CloseLease(s.ctx, &auctiontypes.MsgCloseLease{Signer: s.operator(0), LeaseId: job.LeaseIds[0], Reason: "declined"})
			s.Require().NoError(err)
			return s.outcome(job.LeaseIds[0], before)
		},
		"never start": func() costRow {
			s.provider(0, 1, tablePrice)
			before := stake()
			jobID := s.postJob(3, trainingJob(1, uint64(tableDuration/time.Second), tablePrice))
			s.nextBlock()
			job, err := s.app.AuctionKeeper.Job(s.ctx, jobID)
			s.Require().NoError(err)
			s.until(s.ctx.BlockTime().Add(11 * time.Minute)) // past start_timeout (10 min)
			s.Require().Equal(auctiontypes.LEASE_STATUS_EXPIRED, s.getLease(job.LeaseIds[0]).Status)
			return s.outcome(job.LeaseIds[0], before)
		},
		"close early": func() costRow {
			l, before := s.tableLeaseProven(6)
			_, err := s.auction.CloseLease(s.ctx, &auctiontypes.MsgCloseLease{Signer: s.operator(0), LeaseId: l.Id, Reason: "leaving"})
			s.Require().NoError(err)
			s.until(s.ctx.BlockTime().Add(10 * time.Minute))
			return s.outcome(l.Id, before)
		},
		"miss the last epoch": func() costRow {
			l, before := s.tableLeaseProven(11)
			s.skip(l, 11)
			s.Require().Equal(auctiontypes.LEASE_STATUS_COMPLETED, s.getLease(l.Id).Status)
			return s.outcome(l.Id, before)
		},
		"miss alternately": func() costRow {
			l := s.tableLease()
			before := stake()
			s.proveEpoch(l, 0)
			s.skip(l, 1)
			s.proveEpoch(l, 2)
			s.skip(l, 3)
			s.Require().Equal(auctiontypes.LEASE_STATUS_FAILED, s.getLease(l.Id).Status)
			return s.outcome(l.Id, before)
		},
		"walk away": func() costRow {
			l, before := s.tableLeaseProven(6)
			s.skip(l, 6)
			s.skip(l, 7)
			s.Require().Equal(auctiontypes.LEASE_STATUS_FAILED, s.getLease(l.Id).Status)
			return s.outcome(l.Id, before)
		},
		"excused after a miss": func() costRow {
			l, before := s.tableLeaseProven(10)
			// Epoch 10 goes unproven, and the chain halts from late in its
			// window until after the last epoch's: no proof of epoch 11 can
			// exist, so it is excused; epoch 10 had blocks, so it is missed
			// once its due time, moved by the halt, passes.
			from10, _, _ := types.EpochWindow(l.Start, l.DurationSeconds, 600, 10)
			_, to11, _ := types.EpochWindow(l.Start, l.DurationSeconds, 600, 11)
			s.until(from10.Add(540 * time.Second))
			s.jumpTo(to11.Add(60 * time.Second))
			s.until(s.ctx.BlockTime().Add(time.Hour))
			s.Require().EqualValues(1, s.progress(l.Id).MissedEpochs)
			s.Require().EqualValues(1, s.progress(l.Id).ExcusedEpochs)
			s.Require().Equal(auctiontypes.LEASE_STATUS_COMPLETED, s.getLease(l.Id).Status)
			return s.outcome(l.Id, before)
		},
		"serve in full": func() costRow {
			l, before := s.tableLeaseProven(tableEpochs)
			return s.outcome(l.Id, before)
		},
	}
}

// jumpTo makes the next block at t: a halt of everything in between.
func (s *KeeperTestSuite) jumpTo(t time.Time) {
	s.T().Helper()
	s.Require().NoError(s.app.AuctionKeeper.EndBlocker(s.ctx))
	s.Require().NoError(s.keeper.EndBlocker(s.ctx))
	s.ctx = s.ctx.WithBlockHeight(s.ctx.BlockHeight() + 1).WithBlockTime(t)
	s.beginBlock()
}

// documentedCosts reads the failure-cost table from docs/design.md.
func (s *KeeperTestSuite) documentedCosts() map[string]costRow {
	raw, err := os.ReadFile("../../../docs/design.md")
	s.Require().NoError(err)
	doc := string(raw)
	start := strings.Index(doc, "## Failure costs and fees")
	s.Require().NotEqual(-1, start, "docs/design.md has the failure-cost section")
	row := regexp.MustCompile("(?m)^\\| \\*\\*([a-z ]+)\\*\\*[^|]*\\| ([0-9,]+) \\| ([0-9]+) \\| ([0-9]+) \\| ([0-9,]+) \\| ([0-9]+) bps \\|")
	num := func(t string) int64 {
		n, ok := sdkmath.NewIntFromString(strings.ReplaceAll(t, ",", ""))
		s.Require().True(ok, t)
		return n.Int64()
	}
	out := map[string]costRow{}
	for _, m := range row.FindAllStringSubmatch(doc[start:], -1) {
		out[m[1]] = costRow{
			reliability: uint32(num(m[2])), failed: uint64(num(m[3])), completed: uint64(num(m[4])),
			paid: num(m[5]), slashedBps: uint32(num(m[6])),
		}
	}
	return out
}

// TestFailureCostTable: every row of the documented table is what the
// chain does, and no failure costs less than an open refusal.
func (s *KeeperTestSuite) TestFailureCostTable() {
	documented := s.documentedCosts()
	scenarios := s.failureScenarios()
	s.Require().Len(documented, len(scenarios), "one row per scenario")
	refusal := documented["refuse"]
	for name, play := range scenarios {
		s.Run(name, func() {
			s.SetupTest()
			want, ok := documented[name]
			s.Require().True(ok, "docs/design.md has a row for %q", name)
			s.Require().Equal(want, play())
			if name != "serve in full" {
				s.Require().LessOrEqual(want.reliability, refusal.reliability, "no failure is cheaper than refusing")
				s.Require().GreaterOrEqual(want.failed, refusal.failed, "every failure is a failed lease")
				s.Require().Zero(want.completed, "no failure is a completion")
			}
		})
	}
}

// TestAlternateMissesFailTheLease: the 1-GPU lease at 2 USDC/h with
// every other epoch missed used to run its 12 epochs with reliability
// 10000 → 9970 and nothing else; misses now count in the window, each a
// full step, and the second fails the lease and punishes the provider.
func (s *KeeperTestSuite) TestAlternateMissesFailTheLease() {
	l := s.tableLease()
	stake := s.providerState(0).Stake.Amount
	renterBefore := s.usdc(s.accs[3].Address)
	s.proveEpoch(l, 0)
	s.skip(l, 1)
	rep, err := s.app.ProviderKeeper.Reputations.Get(s.ctx, s.accs[0].Address)
	s.Require().NoError(err)
	s.Require().EqualValues(9844, rep.ReliabilityBps, "a miss is a full step, whatever the epoch pays")
	s.proveEpoch(l, 2)
	s.skip(l, 3)
	final := s.getLease(l.Id)
	s.Require().Equal(auctiontypes.LEASE_STATUS_FAILED, final.Status)
	s.Require().Equal("2 of the last 12 epochs without a proof", final.Reason)
	s.Require().Equal(int64(666_666), final.Paid.Amount.Int64(), "epochs 0 and 2: floor(2,000,000 × 1,200 / 3,600)")
	s.Require().Equal(renterBefore.Add(sdkmath.NewInt(4_000_000-666_666)), s.usdc(s.accs[3].Address))
	p := s.providerState(0)
	s.Require().Equal(providertypes.PROVIDER_STATUS_JAILED, p.Status)
	s.Require().Equal(stake.Sub(stake.MulRaw(100).QuoRaw(10_000)), p.Stake.Amount)
	rep, err = s.app.ProviderKeeper.Reputations.Get(s.ctx, s.accs[0].Address)
	s.Require().NoError(err)
	s.Require().EqualValues(9691, rep.ReliabilityBps)
	s.Require().EqualValues(1, rep.LeasesFailed)
}

// TestMissingTheLastEpochCostsWhatClosingDoes: skipping the last epoch of a
// cheap lease used to cost nothing (8860 → 8860) where closing before it
// cost a step; now both cost the same full step and a failed lease.
func (s *KeeperTestSuite) TestMissingTheLastEpochCostsWhatClosingDoes() {
	cheap := func(end func(l auctiontypes.Lease)) (uint32, uint64) {
		s.SetupTest()
		s.provider(0, 1, 180) // 30 uusdc an epoch
		l := s.lease(3, 1, 3*600*time.Second, 180)
		s.fixture().SetReliability(s.operator(0), 8860) // after winning the SILVER job
		s.proveEpoch(l, 0)
		s.proveEpoch(l, 1)
		end(l)
		rep, err := s.app.ProviderKeeper.Reputations.Get(s.ctx, s.accs[0].Address)
		s.Require().NoError(err)
		return rep.ReliabilityBps, rep.LeasesFailed
	}
	missR, missF := cheap(func(l auctiontypes.Lease) { s.skip(l, 2) })
	closeR, closeF := cheap(func(l auctiontypes.Lease) {
		_, err := s.auction.CloseLease(s.ctx, &auctiontypes.MsgCloseLease{Signer: s.operator(0), LeaseId: l.Id, Reason: "leaving"})
		s.Require().NoError(err)
	})
	s.Require().EqualValues(8722, missR, "8860 − 8860/64")
	s.Require().Equal(closeR, missR)
	s.Require().EqualValues(1, missF)
	s.Require().Equal(closeF, missF)
}

// TestSlowBlocksDoNotSuspendLiveness: blocks every 121 s (above the 120 s
// halt gap) and no proof at all used to count every gap in full as a halt
// — no miss in 4,840 s of a 3,600 s lease. Only the time beyond the
// expected block time (the suite's 60 s) is lost now: each 121 s block
// moves the 900 s due time 61 s, so epoch 0 is missed at the 15th block
// (1,815 s: 900 + 15 × 61 = 1,815) and the lease fails at its second miss.
func (s *KeeperTestSuite) TestSlowBlocksDoNotSuspendLiveness() {
	s.provider(0, 1, tablePrice)
	l := s.lease(3, 1, 3600*time.Second, tablePrice)
	start := s.ctx.BlockTime()
	firstMiss := time.Duration(0)
	for s.ctx.BlockTime().Sub(start) < 4840*time.Second && firstMiss == 0 {
		prev := s.ctx.BlockTime()
		s.jumpTo(prev.Add(121 * time.Second)) // ends the block at prev
		if s.progress(l.Id).MissedEpochs > 0 {
			firstMiss = prev.Sub(start) // declared in that block's EndBlock
		}
	}
	s.Require().Equal(15*121*time.Second, firstMiss, "epoch 0 missed at its moved due time")
}

// TestStepPaymentMustPriceEveryPaymentDenom: governance dropping uusdc
// from reliability_step_payment used to be accepted, after which 20
// self-paid epochs of 30 uusdc moved 9000 → 9275; the change is refused.
func (s *KeeperTestSuite) TestStepPaymentMustPriceEveryPaymentDenom() {
	before, err := s.keeper.Params.Get(s.ctx)
	s.Require().NoError(err)
	p := before
	p.ReliabilityStepPayment = sdk.NewCoins(sdk.NewInt64Coin("ugpu", 10_000_000))
	_, err = s.msgServer.UpdateParams(s.ctx, &types.MsgUpdateParams{Authority: s.authority, Params: p})
	s.Require().ErrorIs(err, types.ErrInvalidParams)
	s.Require().ErrorContains(err, `reliability_step_payment has no amount for payment denom "uusdc"`)
	after, err := s.keeper.Params.Get(s.ctx)
	s.Require().NoError(err)
	s.Require().Equal(before, after)
}

// TestManySmallLeasesPayTheFeeOfOneLarge: ten one-epoch leases paying 30
// uusdc each used to pay no fee at all (each lease rounded its 0.6 down);
// the provider's carried remainder makes them pay floor(300 × 2 %) = 6,
// what one lease paying 300 does.
func (s *KeeperTestSuite) TestManySmallLeasesPayTheFeeOfOneLarge() {
	s.provider(0, 1, 180) // 30 uusdc per 600 s epoch
	feeAddr := authtypes.NewModuleAddress(authtypes.FeeCollectorName)
	feesBefore := s.usdc(feeAddr)
	var paid int64
	for range 10 {
		l := s.lease(3, 1, 600*time.Second, 180)
		s.proveEpoch(l, 0)
		s.nextBlock()
		paid += s.getLease(l.Id).Paid.Amount.Int64()
	}
	s.Require().EqualValues(300, paid)
	s.Require().Equal(sdkmath.NewInt(6), s.usdc(feeAddr).Sub(feesBefore))
	carried, err := s.keeper.FeeRemainders.Has(s.ctx, collections.Join(s.accs[0].Address, "uusdc"))
	s.Require().NoError(err)
	s.Require().False(carried, "300 × 200 = 60,000: six whole units, nothing left to carry")
}

// TestProviderStopCostsOnce: the epoch a provider's own stop cuts short,
// left unproven, goes unpaid but is not a miss on top of the stop — a
// BRONZE preemption mid-epoch stays free (one preemption, reliability
// untouched) and a SILVER close mid-epoch costs one refusal, not a refusal
// and a miss. Epochs that ended before the stop are judged as ever.
func (s *KeeperTestSuite) TestProviderStopCostsOnce() {
	stop := func(tier auctiontypes.Tier, end func(id uint64)) (providertypes.Reputation, auctiontypes.Lease) {
		s.SetupTest()
		s.provider(0, 1, tablePrice)
		sp := trainingJob(1, uint64(tableDuration/time.Second), tablePrice)
		sp.Tier, sp.Preemptible = tier, tier == auctiontypes.TIER_BRONZE
		jobID := s.postJob(3, sp)
		s.nextBlock()
		job, err := s.app.AuctionKeeper.Job(s.ctx, jobID)
		s.Require().NoError(err)
		id := job.LeaseIds[0]
		_, err = s.auction.StartLease(s.ctx, &auctiontypes.MsgStartLease{Signer: s.operator(agent), LeaseId: id})
		s.Require().NoError(err)
		l := s.getLease(id)
		s.proveEpoch(l, 0)
		s.until(s.ctx.BlockTime().Add(5 * time.Minute)) // halfway through epoch 1
		end(id)
		s.until(s.ctx.BlockTime().Add(time.Hour))
		rep, err := s.app.ProviderKeeper.Reputations.Get(s.ctx, s.accs[0].Address)
		s.Require().NoError(err)
		return rep, s.getLease(id)
	}
	rep, l := stop(auctiontypes.TIER_BRONZE, func(id uint64) {
		_, err := s.auction.PreemptLease(s.ctx, &auctiontypes.MsgPreemptLease{Signer: s.operator(0), LeaseId: id, Reason: "thermal"})
		s.Require().NoError(err)
	})
	s.Require().Equal(auctiontypes.LEASE_STATUS_PREEMPTED, l.Status)
	s.Require().EqualValues(1, rep.Preemptions)
	s.Require().Zero(rep.LeasesFailed)
	s.Require().EqualValues(10_000, rep.ReliabilityBps)
	s.Require().Equal(auctiontypes.Due(l.Price, 1, 600), l.Paid, "epoch 0 only: the cut epoch is unpaid")
	s.Require().EqualValues(1, s.progress(l.Id).ExcusedEpochs)

	rep, l = stop(auctiontypes.TIER_SILVER, func(id uint64) {
		_, err := s.auction.CloseLease(s.ctx, &auctiontypes.MsgCloseLease{Signer: s.operator(0), LeaseId: id, Reason: "leaving"})
		s.Require().NoError(err)
	})
	s.Require().Equal(auctiontypes.LEASE_STATUS_CLOSED, l.Status)
	s.Require().EqualValues(1, rep.LeasesFailed)
	s.Require().EqualValues(9844, rep.ReliabilityBps, "one refusal, not a refusal and a miss")
	s.Require().EqualValues(1, rep.MissedEpochs, "the refusal's step is the only one")
}
