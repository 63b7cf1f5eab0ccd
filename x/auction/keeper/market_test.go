package keeper_test

import (
	"fmt"
	"time"

	sdkmath "cosmossdk.io/math"

	abci "github.com/cometbft/cometbft/abci/types"
	sdk "github.com/cosmos/cosmos-sdk/types"
	authtypes "github.com/cosmos/cosmos-sdk/x/auth/types"
	banktypes "github.com/cosmos/cosmos-sdk/x/bank/types"

	"github.com/idlegpu/idlegpu/x/auction/types"
	"github.com/idlegpu/idlegpu/x/base/chaincfg"
	offertypes "github.com/idlegpu/idlegpu/x/offer/types"
	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
	settlementtypes "github.com/idlegpu/idlegpu/x/settlement/types"
)

// TestInstantClearingSecondPrice: a job with no bid window clears in the
// block it is posted against standing offers, reliability-weighted, and
// pays the second price; the escrow above it comes back at once.
func (s *KeeperTestSuite) TestInstantClearingSecondPrice() {
	// p0 asks 2.0 at 10000 bps (effective 2.0); p1 asks 1.9 at 9500
	// (effective 2.0 exactly → tie broken by... both standing, so by
	// address bytes); p2 asks 1.8 at 9000 (effective 2.0). Make p1 clearly
	// best instead: 1.8 at 9600 → 1.875.
	s.provider(0, "eu-de", 2, 10000, 2_000_000)
	o1 := s.provider(1, "eu-de", 2, 9600, 1_800_000)
	s.provider(2, "na-us", 2, 9500, 1_000_000) // cheapest, but the job wants eu
	renter := 3
	before := s.renterUSDC(renter)

	sp := spec(2, 2_500_000, 0)
	sp.Regions = []string{"eu"}
	res, err := s.msgServer.PostJob(s.ctx, &types.MsgPostJob{Renter: s.operator(renter), Spec: sp})
	s.Require().NoError(err)
	// Deposit = ceil(2.5 × 2 GPUs × 7200 s / 3600) = 10 USDC.
	s.Require().Equal("10000000uusdc", res.Deposit.String())
	s.Require().Equal(before.SubRaw(10_000_000), s.renterUSDC(renter))
	s.Require().Equal(sdkmath.NewInt(10_000_000), s.escrowUSDC())

	s.endBlock(time.Second)
	job := s.job(res.JobId)
	s.Require().Equal(types.JOB_STATUS_MATCHED, job.Status)
	// Winner p1 (1.8/0.96 = 1.875 < 2.0). Second price: runner-up p0's
	// effective 2.0 × 0.96 = 1.92 USDC/GPU-h.
	s.Require().Equal("1920000uusdc", job.ClearingPrice.String())
	s.Require().Equal([]uint64{1}, job.LeaseIds)
	l := s.lease(1)
	s.Require().Equal(s.operator(1), l.Provider)
	s.Require().Equal(o1, l.OfferId)
	s.Require().Equal(types.LEASE_STATUS_PENDING, l.Status)
	s.Require().Len(l.GpuUuids, 2)
	// Escrow kept: ceil(1.92 × 2 × 7200 / 3600) = 7.68 USDC; 2.32 refunded now.
	s.Require().Equal("7680000uusdc", l.Escrow.String())
	s.Require().Equal(sdkmath.NewInt(7_680_000), s.escrowUSDC())
	s.Require().Equal(before.SubRaw(7_680_000), s.renterUSDC(renter))
	// The GPUs are leased in x/offer.
	offer, err := s.app.OfferKeeper.Offer(s.ctx, o1)
	s.Require().NoError(err)
	s.Require().Equal(l.GpuUuids, offer.OccupiedGpuUuids)

	// First price would have paid the ask.
	s.SetupTest()
	p := s.keeper.Params
	params, err := p.Get(s.ctx)
	s.Require().NoError(err)
	params.ClearingRule = types.CLEARING_RULE_FIRST_PRICE
	s.Require().NoError(p.Set(s.ctx, params))
	s.provider(0, "eu-de", 2, 10000, 2_000_000)
	s.provider(1, "eu-de", 2, 9600, 1_800_000)
	id := s.post(renter, sp)
	s.endBlock(time.Second)
	s.Require().Equal("1800000uusdc", s.job(id).ClearingPrice.String())
}

// TestLeaseLifecyclePaysExactly: start, pay by the cumulative formula,
// close by the renter; every unit accounted for.
func (s *KeeperTestSuite) TestLeaseLifecyclePaysExactly() {
	s.provider(0, "eu-de", 1, 10000, 1_000_001) // a price that does not divide 3600
	renter := 3
	before := s.renterUSDC(renter)
	id := s.post(renter, spec(1, 1_000_001, 0))
	s.endBlock(time.Second)
	l := s.lease(s.job(id).LeaseIds[0])
	// Single candidate pays its ask; escrow = ceil(1.000001 × 7200 / 3600) = 2000002.
	s.Require().Equal("2000002uusdc", l.Escrow.String())

	// Paying before the start is refused; the agent starts the lease.
	_, err := s.pay(l.Id, s.ctx.BlockTime())
	s.Require().ErrorIs(err, types.ErrInvalidLeaseState)
	_, err = s.msgServer.StartLease(s.ctx, &types.MsgStartLease{Signer: s.operator(5), LeaseId: l.Id}) // the agent
	s.Require().NoError(err)
	start := s.ctx.BlockTime()

	// 1 s in: floor(1000001 / 3600) = 277. 1001 s in: floor(1000001 × 1001 / 3600) = 278055; paid 277 → 277778 more.
	paid, err := s.pay(l.Id, start.Add(time.Second))
	s.Require().NoError(err)
	s.Require().Equal("277uusdc", paid.String())
	paid, err = s.pay(l.Id, start.Add(1001*time.Second))
	s.Require().NoError(err)
	s.Require().Equal("277778uusdc", paid.String())
	// Paying again for the same instant pays nothing.
	paid, err = s.pay(l.Id, start.Add(1001*time.Second))
	s.Require().NoError(err)
	s.Require().True(paid.IsZero())
	s.Require().Equal(sdkmath.NewInt(278_055), s.payeeUSDC())

	// The renter closes: what was paid stays paid, the rest comes back.
	_, err = s.msgServer.CloseLease(s.ctx, &types.MsgCloseLease{Signer: s.operator(renter), LeaseId: l.Id, Reason: "done early"})
	s.Require().NoError(err)
	l = s.lease(l.Id)
	s.Require().Equal(types.LEASE_STATUS_CLOSED, l.Status)
	s.Require().Equal(before.SubRaw(278_055), s.renterUSDC(renter))
	s.Require().True(s.escrowUSDC().IsZero())
	s.Require().Equal(types.JOB_STATUS_CLOSED, s.job(id).Status, "the renter ended it early")
	// GPUs free again; no reputation effect for a renter's close.
	rep, err := s.app.ProviderKeeper.Reputations.Get(s.ctx, s.accs[0].Address)
	s.Require().NoError(err)
	s.Require().Zero(rep.LeasesFailed)
	offer, err := s.app.OfferKeeper.Offer(s.ctx, l.OfferId)
	s.Require().NoError(err)
	s.Require().Empty(offer.OccupiedGpuUuids)
}

// TestFullDurationSettlesToTheUnit: paying to (and past) the end pays
// floor(p × gpus × duration / 3600) in all; EndLease refunds the rounding.
func (s *KeeperTestSuite) TestFullDurationSettlesToTheUnit() {
	s.provider(0, "eu-de", 3, 10000, 1_000_001)
	renter := 3
	before := s.renterUSDC(renter)
	sp := spec(3, 1_000_001, 0)
	sp.DurationSeconds = 5
	id := s.post(renter, sp)
	s.endBlock(time.Second)
	l := s.lease(s.job(id).LeaseIds[0])
	// ceil(1000001 × 3 × 5 / 3600) = ceil(4166.67) = 4167.
	s.Require().Equal("4167uusdc", l.Escrow.String())
	_, err := s.msgServer.StartLease(s.ctx, &types.MsgStartLease{Signer: s.operator(0), LeaseId: l.Id})
	s.Require().NoError(err)
	start := s.ctx.BlockTime()
	total := sdkmath.ZeroInt()
	for sec := 1; sec <= 9; sec++ { // past the 5 s end
		p, err := s.pay(l.Id, start.Add(time.Duration(sec)*time.Second))
		s.Require().NoError(err)
		total = total.Add(p.Amount)
	}
	s.Require().Equal(sdkmath.NewInt(4166), total, "floor(4166.67)")
	s.Require().NoError(s.keeper.EndLease(s.ctx, l.Id, types.LEASE_STATUS_COMPLETED, "all epochs proven"))
	s.Require().Equal(before.SubRaw(4166), s.renterUSDC(renter), "the 1-unit rounding went back")
	rep, err := s.app.ProviderKeeper.Reputations.Get(s.ctx, s.accs[0].Address)
	s.Require().NoError(err)
	s.Require().Equal(uint64(1), rep.LeasesCompleted)
	s.Require().Equal(types.JOB_STATUS_COMPLETED, s.job(id).Status)
}

// TestNoFitExpiresWithFullRefund.
func (s *KeeperTestSuite) TestNoFitExpiresWithFullRefund() {
	s.provider(0, "eu-de", 1, 10000, 3_000_000) // above the job's max
	renter := 3
	before := s.renterUSDC(renter)
	id := s.post(renter, spec(1, 2_000_000, 0))
	s.endBlock(time.Second)
	s.Require().Equal(types.JOB_STATUS_EXPIRED, s.job(id).Status)
	s.Require().Equal(before, s.renterUSDC(renter))
	s.Require().True(s.escrowUSDC().IsZero())
}

// TestClearingHonoursResourcesAndImagePrefixes: a job is matched only with
// an offer that gives the host resources per GPU it requires and whose image
// prefixes take its image, even when a cheaper offer exists.
func (s *KeeperTestSuite) TestClearingHonoursResourcesAndImagePrefixes() {
	cheap := s.provider(0, "eu-de", 1, 10000, 1_000_000)
	rich := s.provider(1, "eu-de", 1, 10000, 1_500_000)
	narrow := s.provider(2, "eu-de", 1, 10000, 500_000)
	s.setTerms(1, rich, func(t *offertypes.OfferTerms) { t.CpuCoresPerGpu, t.MemoryMibPerGpu, t.DiskGibPerGpu = 16, 131072, 400 })
	s.setTerms(0, cheap, func(t *offertypes.OfferTerms) { t.CpuCoresPerGpu, t.MemoryMibPerGpu, t.DiskGibPerGpu = 4, 32768, 100 })
	// The cheapest runs only another registry's images.
	s.setTerms(2, narrow, func(t *offertypes.OfferTerms) {
		t.CpuCoresPerGpu, t.MemoryMibPerGpu, t.DiskGibPerGpu = 64, 524288, 2000
		t.ImagePrefixes = []string{"quay.io/acme/"}
	})
	renter := 3

	sp := spec(1, 2_000_000, 0)
	sp.MinCpuCoresPerGpu, sp.MinHostMemoryMibPerGpu, sp.MinDiskGibPerGpu = 8, 65536, 200
	id := s.post(renter, sp)
	s.endBlock(time.Second)
	job := s.job(id)
	s.Require().Equal(types.JOB_STATUS_MATCHED, job.Status)
	s.Require().Equal(rich, s.lease(job.LeaseIds[0]).OfferId, "only the offer with enough cores, memory and disk fits")

	sp = spec(1, 2_000_000, 0)
	sp.MinDiskGibPerGpu = 2001
	id = s.post(renter, sp)
	s.endBlock(time.Second)
	s.Require().Equal(types.JOB_STATUS_EXPIRED, s.job(id).Status, "no offer has that much disk")

	sp = spec(1, 2_000_000, 0)
	sp.Image = "quay.io/acme/train:1.4"
	id = s.post(renter, sp)
	s.endBlock(time.Second)
	job = s.job(id)
	s.Require().Equal(types.JOB_STATUS_MATCHED, job.Status)
	s.Require().Equal(narrow, s.lease(job.LeaseIds[0]).OfferId, "an image under its prefix goes to the cheapest")
}

// TestClearingHonoursEgress: a job that needs egress is matched only with an
// offer that gives at least that much per GPU, even when a cheaper offer
// exists; a job that needs none takes the cheapest, the no-network one
// included. The cases run in order on one market: each lease holds its GPU.
func (s *KeeperTestSuite) TestClearingHonoursEgress() {
	none := s.provider(0, "eu-de", 1, 10000, 1_000_000)
	slow := s.provider(1, "eu-de", 2, 10000, 1_200_000)
	fast := s.provider(2, "eu-de", 2, 10000, 1_500_000)
	s.setTerms(1, slow, func(t *offertypes.OfferTerms) { t.EgressMbpsPerGpu = 100 })
	s.setTerms(2, fast, func(t *offertypes.OfferTerms) { t.EgressMbpsPerGpu = 1000 })
	renter := 3

	for _, tc := range []struct {
		name      string
		minEgress uint32
		wantOffer uint64 // 0: no offer fits and the job expires
		wantPrice int64
	}{
		{"needs none: the cheapest, the no-network offer, at the runner-up's ask", 0, none, 1_200_000},
		{"needs 1 Mbit/s: not the no-network offer", 1, slow, 1_500_000},
		{"needs exactly the slow offer's rate", 100, slow, 1_500_000},
		{"needs one more than the slow offer's: the only fit, at its own ask", 101, fast, 1_500_000},
		{"needs exactly the fast offer's rate", 1000, fast, 1_500_000},
		{"needs more than any offer gives", 1001, 0, 0},
	} {
		s.Run(tc.name, func() {
			before := s.renterUSDC(renter)
			sp := spec(1, 2_000_000, 0)
			sp.MinEgressMbpsPerGpu = tc.minEgress
			id := s.post(renter, sp)
			s.endBlock(time.Second)
			job := s.job(id)
			if tc.wantOffer == 0 {
				s.Require().Equal(types.JOB_STATUS_EXPIRED, job.Status)
				s.Require().Equal(before, s.renterUSDC(renter), "the whole deposit comes back")
				return
			}
			s.Require().Equal(types.JOB_STATUS_MATCHED, job.Status)
			l := s.lease(job.LeaseIds[0])
			s.Require().Equal(tc.wantOffer, l.OfferId)
			s.Require().Equal(tc.wantPrice, l.Price.Amount.Int64())
			// Escrow keeps price × 1 GPU × 2 h; the rest of the deposit is back.
			s.Require().Equal(before.SubRaw(2*tc.wantPrice), s.renterUSDC(renter))
		})
	}
}

// TestClearingHonoursIngress: a job that serves inbound traffic goes to the
// offer with an ingress even when one without is cheaper, pays that offer's
// ask, and expires with its whole deposit back when no offer has one; a job
// with no service takes the cheapest. The cases run in order on one market.
func (s *KeeperTestSuite) TestClearingHonoursIngress() {
	closed := s.provider(0, "eu-de", 1, 10000, 1_000_000)
	served := s.provider(1, "eu-de", 1, 10000, 1_400_000)
	s.setTerms(1, served, func(t *offertypes.OfferTerms) { t.IngressDomain = "gpu.example.com" })
	renter := 3

	for _, tc := range []struct {
		name      string
		port      uint32
		wantOffer uint64 // 0: no offer fits and the job expires
		wantPrice int64
	}{
		{"a service: the ingress offer, the only fit, at its own ask", 8000, served, 1_400_000},
		{"no service: the cheapest, and the only one left free", 0, closed, 1_000_000},
		{"a service and no free ingress offer: it expires", 8000, 0, 0},
	} {
		s.Run(tc.name, func() {
			before := s.renterUSDC(renter)
			sp := spec(1, 2_000_000, 0)
			sp.IngressPort = tc.port
			id := s.post(renter, sp)
			s.endBlock(time.Second)
			job := s.job(id)
			if tc.wantOffer == 0 {
				s.Require().Equal(types.JOB_STATUS_EXPIRED, job.Status)
				s.Require().Equal(before, s.renterUSDC(renter), "the whole deposit comes back")
				return
			}
			s.Require().Equal(types.JOB_STATUS_MATCHED, job.Status)
			l := s.lease(job.LeaseIds[0])
			s.Require().Equal(tc.wantOffer, l.OfferId)
			s.Require().Equal(tc.wantPrice, l.Price.Amount.Int64())
			s.Require().Equal(before.SubRaw(2*tc.wantPrice), s.renterUSDC(renter))
		})
	}
}

// setTerms edits offer id's terms through MsgUpdateOffer.
func (s *KeeperTestSuite) setTerms(i int, id uint64, edit func(*offertypes.OfferTerms)) {
	s.T().Helper()
	o, err := s.app.OfferKeeper.Offer(s.ctx, id)
	s.Require().NoError(err)
	t := o.Terms
	edit(&t)
	_, err = s.offers.UpdateOffer(s.ctx, &offertypes.MsgUpdateOffer{Signer: s.operator(i), OfferId: id, Terms: t})
	s.Require().NoError(err)
}

// TestTierReliabilityAndLanes: SILVER needs 9500 bps; BRONZE buys the
// preemptible lane at its price and can be preempted without a slash.
func (s *KeeperTestSuite) TestTierReliabilityAndLanes() {
	s.provider(0, "eu-de", 1, 9000, 2_000_000) // too unreliable for SILVER
	renter := 3
	id := s.post(renter, spec(1, 5_000_000, 0))
	s.endBlock(time.Second)
	s.Require().Equal(types.JOB_STATUS_EXPIRED, s.job(id).Status)

	sp := spec(1, 5_000_000, 0)
	sp.Tier, sp.Preemptible = types.TIER_BRONZE, true
	id = s.post(renter, sp)
	s.endBlock(time.Second)
	job := s.job(id)
	s.Require().Equal(types.JOB_STATUS_MATCHED, job.Status)
	s.Require().Equal("1000000uusdc", job.ClearingPrice.String(), "the preemptible price")
	lid := job.LeaseIds[0]
	_, err := s.msgServer.StartLease(s.ctx, &types.MsgStartLease{Signer: s.operator(0), LeaseId: lid})
	s.Require().NoError(err)
	stakeBefore := s.app.BankKeeper.GetSupply(s.ctx, "ugpu")
	_, err = s.msgServer.PreemptLease(s.ctx, &types.MsgPreemptLease{Signer: s.operator(5), LeaseId: lid, Reason: "owner needs the GPU"})
	s.Require().NoError(err)
	s.Require().Equal(types.LEASE_STATUS_PREEMPTED, s.lease(lid).Status)
	rep, err := s.app.ProviderKeeper.Reputations.Get(s.ctx, s.accs[0].Address)
	s.Require().NoError(err)
	s.Require().Equal(uint64(1), rep.Preemptions)
	s.Require().Equal(stakeBefore, s.app.BankKeeper.GetSupply(s.ctx, "ugpu"), "no slash")
}

// TestProviderCloseCountsAsFailure and preempting a SILVER lease is refused.
func (s *KeeperTestSuite) TestProviderCloseCountsAsFailure() {
	s.provider(0, "eu-de", 1, 10000, 2_000_000)
	id := s.post(3, spec(1, 2_000_000, 0))
	s.endBlock(time.Second)
	lid := s.job(id).LeaseIds[0]
	_, err := s.msgServer.PreemptLease(s.ctx, &types.MsgPreemptLease{Signer: s.operator(0), LeaseId: lid})
	s.Require().ErrorIs(err, types.ErrNotPreemptible)
	_, err = s.msgServer.CloseLease(s.ctx, &types.MsgCloseLease{Signer: s.operator(4), LeaseId: lid})
	s.Require().ErrorIs(err, types.ErrUnauthorized, "a stranger")
	_, err = s.msgServer.CloseLease(s.ctx, &types.MsgCloseLease{Signer: s.operator(0), LeaseId: lid, Reason: "maintenance"})
	s.Require().NoError(err)
	rep, err := s.app.ProviderKeeper.Reputations.Get(s.ctx, s.accs[0].Address)
	s.Require().NoError(err)
	s.Require().Equal(uint64(1), rep.LeasesFailed)
	_, err = s.msgServer.CloseLease(s.ctx, &types.MsgCloseLease{Signer: s.operator(0), LeaseId: lid})
	s.Require().ErrorIs(err, types.ErrInvalidLeaseState)
}

// TestStartTimeoutRefundsInFull: a lease never started closes by itself,
// refunding the renter in full and costing the provider what refusing it
// openly would (one failed lease and a full reliability step).
func (s *KeeperTestSuite) TestStartTimeoutRefundsInFull() {
	s.provider(0, "eu-de", 1, 10000, 2_000_000)
	renter := 3
	before := s.renterUSDC(renter)
	id := s.post(renter, spec(1, 2_000_000, 0))
	s.endBlock(time.Second)
	lid := s.job(id).LeaseIds[0]
	s.endBlock(599 * time.Second) // 600 s after clearing: the deadline (default 10 m)
	s.Require().Equal(types.LEASE_STATUS_PENDING, s.lease(lid).Status)
	s.endBlock(time.Second)
	l := s.lease(lid)
	s.Require().Equal(types.LEASE_STATUS_EXPIRED, l.Status)
	s.Require().Equal(types.JOB_STATUS_INTERRUPTED, s.job(id).Status)
	s.Require().Equal(before, s.renterUSDC(renter))
	rep, err := s.app.ProviderKeeper.Reputations.Get(s.ctx, s.accs[0].Address)
	s.Require().NoError(err)
	s.Require().EqualValues(1, rep.LeasesFailed, "silence costs what a refusal does")
	s.Require().EqualValues(9844, rep.ReliabilityBps, "10000 − 10000/64")
	_, err = s.msgServer.StartLease(s.ctx, &types.MsgStartLease{Signer: s.operator(0), LeaseId: lid})
	s.Require().ErrorIs(err, types.ErrInvalidLeaseState)
}

// TestBidsCompeteWithStandingOffers: an explicit bid below its offer's
// standing price wins; replacing and withdrawing bids.
func (s *KeeperTestSuite) TestBidsCompeteWithStandingOffers() {
	o0 := s.provider(0, "eu-de", 2, 10000, 2_000_000)
	o1 := s.provider(1, "eu-de", 2, 10000, 1_500_000)
	renter := 3
	id := s.post(renter, spec(2, 3_000_000, 2)) // clears at height + 2
	bid := func(i int, offer uint64, price int64) error {
		_, err := s.msgServer.PlaceBid(s.ctx, &types.MsgPlaceBid{
			Signer: s.operator(i), Provider: s.operator(i), JobId: id, OfferId: offer, Price: *usdc(price), GpuCount: 2,
		})
		return err
	}
	s.Require().ErrorIs(bid(0, o0, 1_000_000), types.ErrBidBelowFloor)
	s.Require().ErrorIs(bid(0, o0, 3_000_001), types.ErrBidTooHigh)
	s.Require().ErrorIs(bid(0, o1, 2_000_000), types.ErrOfferUnfit, "another provider's offer")
	s.Require().NoError(bid(0, o0, 2_500_000))
	s.Require().NoError(bid(0, o0, 2_200_000)) // replaces
	bids, err := s.keeper.JobBids(s.ctx, id)
	s.Require().NoError(err)
	s.Require().Len(bids, 1)
	s.Require().Equal("2200000uusdc", bids[0].Price.String())
	_, err = s.msgServer.WithdrawBid(s.ctx, &types.MsgWithdrawBid{Signer: s.operator(1), Provider: s.operator(1), JobId: id})
	s.Require().ErrorIs(err, types.ErrBidNotFound)

	s.endBlock(time.Second)
	s.endBlock(time.Second)
	s.Require().Equal(types.JOB_STATUS_OPEN, s.job(id).Status, "the deadline is the next block")
	s.endBlock(time.Second)
	job := s.job(id)
	s.Require().Equal(types.JOB_STATUS_MATCHED, job.Status)
	// p1's standing offer (1.5) wins. p0 competes with its best candidate:
	// its standing offer at 2.0 (a floor it takes for any job) beats its own
	// bid of 2.2, so the second price is 2.0.
	s.Require().Equal(s.operator(1), s.lease(job.LeaseIds[0]).Provider)
	s.Require().Equal("2000000uusdc", job.ClearingPrice.String())
	s.Require().ErrorIs(bid(0, o0, 2_000_000), types.ErrJobNotOpen)
}

// TestMicroPool: a split job takes GPUs from two providers at one price.
func (s *KeeperTestSuite) TestMicroPool() {
	s.provider(0, "eu-de", 2, 10000, 1_000_000)
	s.provider(1, "eu-de", 2, 10000, 1_200_000)
	s.provider(2, "eu-de", 1, 10000, 1_500_000)
	renter := 3
	before := s.renterUSDC(renter)
	sp := spec(3, 2_000_000, 0)
	sp.AllowSplit = true
	id := s.post(renter, sp)
	s.endBlock(time.Second)
	job := s.job(id)
	s.Require().Equal(types.JOB_STATUS_MATCHED, job.Status)
	s.Require().Len(job.LeaseIds, 2)
	// Winners p0 (2 GPUs) and p1 (1 GPU); runner-up p2 at 1.5 sets the price.
	s.Require().Equal("1500000uusdc", job.ClearingPrice.String())
	a, b := s.lease(job.LeaseIds[0]), s.lease(job.LeaseIds[1])
	s.Require().Len(a.GpuUuids, 2)
	s.Require().Len(b.GpuUuids, 1)
	// Escrow: ceil(1.5 × 3 × 7200 / 3600) = 9 USDC, split 6 + 3.
	s.Require().Equal("6000000uusdc", a.Escrow.String())
	s.Require().Equal("3000000uusdc", b.Escrow.String())
	s.Require().Equal(before.SubRaw(9_000_000), s.renterUSDC(renter))
	s.Require().Equal(uint32(2), job.OpenLeases)

	// Without split the same job cannot be filled: nobody has three GPUs.
	sp.AllowSplit = false
	id = s.post(renter, sp)
	s.endBlock(time.Second)
	s.Require().Equal(types.JOB_STATUS_EXPIRED, s.job(id).Status)
}

// TestCancelJob: before clearing a full refund; after, leases close.
func (s *KeeperTestSuite) TestCancelJob() {
	s.provider(0, "eu-de", 1, 10000, 2_000_000)
	renter := 3
	before := s.renterUSDC(renter)
	id := s.post(renter, spec(1, 2_000_000, 5))
	_, err := s.msgServer.CancelJob(s.ctx, &types.MsgCancelJob{Renter: s.operator(4), JobId: id})
	s.Require().ErrorIs(err, types.ErrUnauthorized)
	_, err = s.msgServer.CancelJob(s.ctx, &types.MsgCancelJob{Renter: s.operator(renter), JobId: id})
	s.Require().NoError(err)
	s.Require().Equal(before, s.renterUSDC(renter))
	s.Require().Equal(types.JOB_STATUS_CANCELLED, s.job(id).Status)
	for range 6 {
		s.endBlock(time.Second) // the cancelled job is out of the clearing queue
	}
	s.Require().Equal(types.JOB_STATUS_CANCELLED, s.job(id).Status)

	id = s.post(renter, spec(1, 2_000_000, 0))
	s.endBlock(time.Second)
	lid := s.job(id).LeaseIds[0]
	_, err = s.msgServer.StartLease(s.ctx, &types.MsgStartLease{Signer: s.operator(0), LeaseId: lid})
	s.Require().NoError(err)
	_, err = s.pay(lid, s.ctx.BlockTime().Add(time.Hour))
	s.Require().NoError(err)
	_, err = s.msgServer.CancelJob(s.ctx, &types.MsgCancelJob{Renter: s.operator(renter), JobId: id})
	s.Require().NoError(err)
	s.Require().Equal(types.LEASE_STATUS_CLOSED, s.lease(lid).Status)
	s.Require().Equal(before.SubRaw(2_000_000), s.renterUSDC(renter), "one paid hour at 2 USDC")
	_, err = s.msgServer.CancelJob(s.ctx, &types.MsgCancelJob{Renter: s.operator(renter), JobId: id})
	s.Require().ErrorIs(err, types.ErrJobNotOpen)
}

// TestPostJobRejects: each bad input has its typed error and moves nothing.
func (s *KeeperTestSuite) TestPostJobRejects() {
	with := func(edit func(*types.JobSpec)) types.JobSpec {
		sp := spec(1, 2_000_000, 0)
		edit(&sp)
		return sp
	}
	huge := sdk.Coin{Denom: "uusdc", Amount: sdkmath.NewIntFromUint64(1 << 63).Mul(sdkmath.NewIntFromUint64(1 << 63)).MulRaw(4)}
	for _, tc := range []struct {
		name   string
		spec   types.JobSpec
		renter int
		expErr error
	}{
		{"zero GPUs", with(func(s *types.JobSpec) { s.GpuCount = 0 }), 3, types.ErrInvalidGPUCount},
		{"more GPUs than the limit", with(func(s *types.JobSpec) { s.GpuCount = 65 }), 3, types.ErrInvalidGPUCount},
		{"zero duration", with(func(s *types.JobSpec) { s.DurationSeconds = 0 }), 3, types.ErrInvalidDuration},
		{"above max duration", with(func(s *types.JobSpec) { s.DurationSeconds = 720*3600 + 1 }), 3, types.ErrInvalidDuration},
		{"zero max price", with(func(s *types.JobSpec) { s.MaxPrice = *usdc(0) }), 3, types.ErrInvalidPrice},
		{"overflowing max price", with(func(s *types.JobSpec) { s.MaxPrice = huge }), 3, types.ErrInvalidPrice},
		{"denom not accepted", with(func(s *types.JobSpec) { s.MaxPrice = sdk.NewInt64Coin("uatom", 5) }), 3, types.ErrDenomNotAccepted},
		{"unknown tier", with(func(s *types.JobSpec) { s.Tier = 9 }), 3, types.ErrInvalidTier},
		{"BRONZE without preemptible", with(func(s *types.JobSpec) { s.Tier = types.TIER_BRONZE }), 3, types.ErrInvalidTier},
		{"image without digest", with(func(s *types.JobSpec) { s.ImageDigest = "latest" }), 3, types.ErrInvalidImage},
		{"short digest", with(func(s *types.JobSpec) { s.ImageDigest = "sha256:abcd" }), 3, types.ErrInvalidImage},
		{"no manifest hash", with(func(s *types.JobSpec) { s.ManifestHash = "" }), 3, types.ErrInvalidManifestHash},
		{"malformed manifest hash", with(func(s *types.JobSpec) { s.ManifestHash = "XYZ" }), 3, types.ErrInvalidManifestHash},
		{"empty model", with(func(s *types.JobSpec) { s.Models = []string{""} }), 3, types.ErrInvalidModels},
		{"bad region", with(func(s *types.JobSpec) { s.Regions = []string{"europe"} }), 3, types.ErrInvalidRegions},
		{"no workload", with(func(s *types.JobSpec) { s.Workload = offertypes.WORKLOAD_UNSPECIFIED }), 3, types.ErrInvalidWorkload},
		{"bid window too long", with(func(s *types.JobSpec) { s.BidWindowBlocks = 100_001 }), 3, types.ErrInvalidBidWindow},
		{"more cores per GPU than any offer may give", with(func(s *types.JobSpec) { s.MinCpuCoresPerGpu = offertypes.MaxCPUCoresPerGPU + 1 }), 3, types.ErrInvalidResources},
		{"more memory per GPU than any offer may give", with(func(s *types.JobSpec) { s.MinHostMemoryMibPerGpu = offertypes.MaxMemoryMiBPerGPU + 1 }), 3, types.ErrInvalidResources},
		{"more disk per GPU than any offer may give", with(func(s *types.JobSpec) { s.MinDiskGibPerGpu = offertypes.MaxDiskGiBPerGPU + 1 }), 3, types.ErrInvalidResources},
		{"more egress per GPU than any offer may give", with(func(s *types.JobSpec) { s.MinEgressMbpsPerGpu = offertypes.MaxEgressMbpsPerGPU + 1 }), 3, types.ErrInvalidResources},
		{"deposit the renter cannot pay", with(func(s *types.JobSpec) { s.MaxPrice = *usdc(1_000_000_000_000) }), 3, types.ErrInsufficientFunds},
	} {
		s.Run(tc.name, func() {
			before := s.renterUSDC(tc.renter)
			escrow := s.escrowUSDC()
			_, err := s.msgServer.PostJob(s.ctx, &types.MsgPostJob{Renter: s.operator(tc.renter), Spec: tc.spec})
			s.Require().ErrorIs(err, tc.expErr)
			s.Require().Equal(before, s.renterUSDC(tc.renter))
			s.Require().Equal(escrow, s.escrowUSDC())
			_, err = s.keeper.Job(s.ctx, 1)
			s.Require().ErrorIs(err, types.ErrJobNotFound)
		})
	}
}

// TestBidEligibility: only authorized signers of an ACTIVE, reliable
// enough provider may bid.
func (s *KeeperTestSuite) TestBidEligibility() {
	o0 := s.provider(0, "eu-de", 1, 10000, 1_000_000)
	id := s.post(3, spec(1, 2_000_000, 3))
	place := func(signer int) error {
		_, err := s.msgServer.PlaceBid(s.ctx, &types.MsgPlaceBid{Signer: s.operator(signer), Provider: s.operator(0), JobId: id, OfferId: o0, Price: *usdc(1_500_000), GpuCount: 1})
		return err
	}
	s.Require().ErrorIs(place(4), types.ErrUnauthorized)
	s.setReliability(0, 9000)
	s.Require().ErrorIs(place(0), types.ErrProviderNotEligible)
	s.setReliability(0, 10000)
	s.Require().NoError(s.app.ProviderKeeper.Jail(s.ctx, s.accs[0].Address, s.ctx.BlockTime().Add(time.Hour)))
	s.Require().ErrorIs(place(0), types.ErrProviderNotEligible)
	_, err := s.msgServer.PlaceBid(s.ctx, &types.MsgPlaceBid{Signer: s.operator(0), Provider: s.operator(0), JobId: id, OfferId: o0, Price: *usdc(1_500_000), GpuCount: 2})
	s.Require().ErrorIs(err, types.ErrInvalidGPUCount)
	_ = providertypes.PROVIDER_STATUS_JAILED
}

// TestBidsOnlyMarket: with standing offers excluded, explicit bids alone
// compete; the earlier of two equal bids wins.
func (s *KeeperTestSuite) TestBidsOnlyMarket() {
	params, err := s.keeper.Params.Get(s.ctx)
	s.Require().NoError(err)
	params.IncludeStandingOffers = false
	s.Require().NoError(s.keeper.Params.Set(s.ctx, params))
	o0 := s.provider(0, "eu-de", 1, 10000, 1_000_000)
	o1 := s.provider(1, "eu-de", 1, 10000, 1_000_000)
	s.provider(2, "eu-de", 1, 10000, 500_000) // cheapest, but it does not bid
	id := s.post(3, spec(1, 2_000_000, 1))
	for _, b := range []struct {
		i     int
		offer uint64
	}{{1, o1}, {0, o0}} {
		_, err := s.msgServer.PlaceBid(s.ctx, &types.MsgPlaceBid{
			Signer: s.operator(b.i), Provider: s.operator(b.i), JobId: id, OfferId: b.offer, Price: *usdc(1_400_000), GpuCount: 1,
		})
		s.Require().NoError(err)
	}
	s.endBlock(time.Second)
	s.endBlock(time.Second)
	job := s.job(id)
	s.Require().Equal(types.JOB_STATUS_MATCHED, job.Status)
	s.Require().Equal(s.operator(1), s.lease(job.LeaseIds[0]).Provider, "the earlier bid")
	s.Require().Equal("1400000uusdc", job.ClearingPrice.String())
	bids, err := s.keeper.JobBids(s.ctx, id)
	s.Require().NoError(err)
	s.Require().Empty(bids, "bids leave with clearing")
}

// TestStaleBidsAreSkipped: a bid whose offer was closed, or whose provider
// was jailed, before the deadline does not win; with nothing else, the job
// expires with a full refund.
func (s *KeeperTestSuite) TestStaleBidsAreSkipped() {
	params, err := s.keeper.Params.Get(s.ctx)
	s.Require().NoError(err)
	params.IncludeStandingOffers = false
	s.Require().NoError(s.keeper.Params.Set(s.ctx, params))
	o0 := s.provider(0, "eu-de", 1, 10000, 1_000_000)
	o1 := s.provider(1, "eu-de", 1, 10000, 1_000_000)
	renter := 3
	before := s.renterUSDC(renter)
	id := s.post(renter, spec(1, 2_000_000, 1))
	for _, b := range []struct {
		i     int
		offer uint64
	}{{0, o0}, {1, o1}} {
		_, err := s.msgServer.PlaceBid(s.ctx, &types.MsgPlaceBid{
			Signer: s.operator(b.i), Provider: s.operator(b.i), JobId: id, OfferId: b.offer, Price: *usdc(1_500_000), GpuCount: 1,
		})
		s.Require().NoError(err)
	}
	_, err = s.offers.CloseOffer(s.ctx, &offertypes.MsgCloseOffer{Signer: s.operator(0), OfferId: o0})
	s.Require().NoError(err)
	s.Require().NoError(s.app.ProviderKeeper.Jail(s.ctx, s.accs[1].Address, s.ctx.BlockTime().Add(time.Hour)))
	s.endBlock(time.Second)
	s.endBlock(time.Second)
	s.Require().Equal(types.JOB_STATUS_EXPIRED, s.job(id).Status)
	s.Require().Equal(before, s.renterUSDC(renter))
}

// TestBidLimitAndCount: max_bids_per_job counts providers, not bids (a
// replacement is free, a withdrawal frees a place), and the job's bid count
// follows the store until clearing empties it.
func (s *KeeperTestSuite) TestBidLimitAndCount() {
	params, err := s.keeper.Params.Get(s.ctx)
	s.Require().NoError(err)
	params.MaxBidsPerJob = 2
	s.Require().NoError(s.keeper.Params.Set(s.ctx, params))
	offers := []uint64{
		s.provider(0, "eu-de", 1, 10000, 1_000_000),
		s.provider(1, "eu-de", 1, 10000, 1_000_000),
		s.provider(2, "eu-de", 1, 10000, 1_000_000),
	}
	id := s.post(3, spec(1, 2_000_000, 1))
	bid := func(i int, price int64) error {
		_, err := s.msgServer.PlaceBid(s.ctx, &types.MsgPlaceBid{
			Signer: s.operator(i), Provider: s.operator(i), JobId: id, OfferId: offers[i], Price: *usdc(price), GpuCount: 1,
		})
		return err
	}
	s.Require().NoError(bid(0, 1_500_000))
	s.Require().NoError(bid(1, 1_400_000))
	s.Require().EqualValues(2, s.job(id).Bids)
	s.Require().ErrorIs(bid(2, 1_300_000), types.ErrTooManyBids)
	s.Require().NoError(bid(0, 1_200_000), "a replacement takes no new place")
	s.Require().EqualValues(2, s.job(id).Bids)
	_, err = s.msgServer.WithdrawBid(s.ctx, &types.MsgWithdrawBid{Signer: s.operator(1), Provider: s.operator(1), JobId: id})
	s.Require().NoError(err)
	s.Require().EqualValues(1, s.job(id).Bids)
	s.Require().NoError(bid(2, 1_300_000))
	s.Require().EqualValues(2, s.job(id).Bids)
	s.Require().NoError(s.keeper.CheckInvariants(s.ctx))

	s.endBlock(time.Second)
	s.endBlock(time.Second)
	job := s.job(id)
	s.Require().Equal(types.JOB_STATUS_MATCHED, job.Status)
	s.Require().Zero(job.Bids)
	bids, err := s.keeper.JobBids(s.ctx, id)
	s.Require().NoError(err)
	s.Require().Empty(bids)
	s.Require().NoError(s.keeper.CheckInvariants(s.ctx))
}

// pay pays one lease its time up to until through PayLeases, as
// x/settlement does for one proof.
func (s *KeeperTestSuite) pay(leaseID uint64, until time.Time) (sdk.Coin, error) {
	each, _, err := s.keeper.PayLeases(s.ctx, []types.LeasePayment{{LeaseID: leaseID, ProvenUntil: until}})
	if err != nil {
		return sdk.Coin{}, err
	}
	return each[0], nil
}

// TestPayLeasesMovesExactlyWhatItPaid: two leases paid in one call move
// their sum to the payee in one transfer; a call whose later payment fails
// moves nothing to the payee (the tx that ran it fails with it).
func (s *KeeperTestSuite) TestPayLeasesMovesExactlyWhatItPaid() {
	s.provider(0, "eu-de", 2, 10000, 3_600_000) // 1000 uusdc per GPU-second
	renter := 3
	a := s.post(renter, spec(1, 3_600_000, 0))
	b := s.post(renter, spec(1, 3_600_000, 0))
	s.endBlock(time.Second)
	la, lb := s.job(a).LeaseIds[0], s.job(b).LeaseIds[0]
	for _, id := range []uint64{la, lb} {
		_, err := s.msgServer.StartLease(s.ctx, &types.MsgStartLease{Signer: s.operator(0), LeaseId: id})
		s.Require().NoError(err)
	}
	start := s.ctx.BlockTime()
	escrowBefore := s.escrowUSDC()

	_, paid, err := s.keeper.PayLeases(s.ctx, []types.LeasePayment{{LeaseID: la, ProvenUntil: start.Add(10 * time.Second)},
		{LeaseID: lb, ProvenUntil: start.Add(25 * time.Second)}})
	s.Require().NoError(err)
	s.Require().Equal("35000uusdc", paid.String())
	s.Require().Equal(sdkmath.NewInt(35_000), s.payeeUSDC())
	s.Require().Equal(escrowBefore.SubRaw(35_000), s.escrowUSDC())
	s.Require().Equal("10000uusdc", s.lease(la).Paid.String())
	s.Require().Equal("25000uusdc", s.lease(lb).Paid.String())

	// A payment that fails after paying one lease: PayLeases returns before
	// any transfer (the failed tx then discards the accrual, as the cached
	// context here is discarded).
	cctx, _ := s.ctx.CacheContext()
	_, _, err = s.keeper.PayLeases(cctx, []types.LeasePayment{{LeaseID: la, ProvenUntil: start.Add(20 * time.Second)},
		{LeaseID: 99, ProvenUntil: start.Add(20 * time.Second)}})
	payee := s.app.BankKeeper.GetBalance(cctx, authtypes.NewModuleAddress(settlementtypes.ModuleName), chaincfg.USDCDenom)
	s.Require().Equal(sdkmath.NewInt(35_000), payee.Amount, "nothing moved for the failed settle")
	s.Require().ErrorIs(err, types.ErrLeaseNotFound)
	s.Require().Equal(sdkmath.NewInt(35_000), s.payeeUSDC())
}

// TestRefundsOfOneBlockArriveExactly: a block's clearings refund together
// after the last one, one transfer per renter, and each job's refund is
// still announced on its own. Three jobs of two renters clear in one
// EndBlock against one 2-GPU offer asking 1.0: the first two take a GPU
// each (the second from the offer the first left half free), the third
// finds none and expires.
func (s *KeeperTestSuite) TestRefundsOfOneBlockArriveExactly() {
	s.provider(0, "eu-de", 2, 10000, 1_000_000)
	before3, before4 := s.renterUSDC(3), s.renterUSDC(4)
	a := s.post(3, spec(1, 2_500_000, 0)) // deposit ceil(2.5 × 7200 / 3600) = 5.0
	b := s.post(4, spec(1, 1_500_000, 0)) // deposit 3.0
	c := s.post(3, spec(1, 2_500_000, 0)) // deposit 5.0
	s.Require().Equal(sdkmath.NewInt(13_000_000), s.escrowUSDC())

	em := sdk.NewEventManager()
	s.ctx = s.ctx.WithEventManager(em)
	s.endBlock(time.Second)
	s.Require().Equal(types.JOB_STATUS_MATCHED, s.job(a).Status)
	s.Require().Equal(types.JOB_STATUS_MATCHED, s.job(b).Status)
	s.Require().Equal(types.JOB_STATUS_EXPIRED, s.job(c).Status)
	// A lone candidate pays its ask: escrow 1.0 × 7200 / 3600 = 2.0 each.
	s.Require().Equal(before3.SubRaw(2_000_000), s.renterUSDC(3))
	s.Require().Equal(before4.SubRaw(2_000_000), s.renterUSDC(4))
	s.Require().Equal(sdkmath.NewInt(4_000_000), s.escrowUSDC())
	s.Require().NoError(s.keeper.CheckInvariants(s.ctx))

	var refunds []string
	received := map[string]int{}
	for _, ev := range em.Events() {
		switch ev.Type {
		case "idlegpu.auction.v1.EventEscrowRefunded":
			e, err := sdk.ParseTypedEvent(abci.Event(ev))
			s.Require().NoError(err)
			r := e.(*types.EventEscrowRefunded)
			refunds = append(refunds, fmt.Sprintf("job %d %s %s", r.JobId, r.Renter, r.Amount))
		case banktypes.EventTypeCoinReceived:
			for _, attr := range ev.Attributes {
				if attr.Key == banktypes.AttributeKeyReceiver {
					received[attr.Value]++
				}
			}
		}
	}
	s.Require().Equal([]string{
		fmt.Sprintf("job %d %s 3000000uusdc", a, s.operator(3)),
		fmt.Sprintf("job %d %s 1000000uusdc", b, s.operator(4)),
		fmt.Sprintf("job %d %s 5000000uusdc", c, s.operator(3)),
	}, refunds)
	s.Require().Equal(1, received[s.operator(3)], "renter 3's two refunds arrive in one transfer")
	s.Require().Equal(1, received[s.operator(4)])
}
