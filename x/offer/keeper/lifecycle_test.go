package keeper_test

import (
	"time"

	"github.com/idlegpu/idlegpu/x/offer/types"
	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
)

func (s *KeeperTestSuite) TestUpdateOfferMovesTheIndex() {
	uuids := s.provide(0, h100, 81559, 0, 2, 2)
	id := s.create(0, uuids, terms(2_000_000))

	// New prices, on-demand only: the offer moves in the index and leaves the other lanes.
	t := terms(3_000_000)
	t.Lanes = uint32(types.LANE_ON_DEMAND)
	t.PricePreemptible = nil
	s.advance(10 * time.Second)
	_, err := s.msgServer.UpdateOffer(s.ctx, &types.MsgUpdateOffer{Signer: s.operator(4), OfferId: id, Terms: t})
	s.Require().NoError(err)
	s.Require().Equal([]string{`LANE_ON_DEMAND/"NVIDIA H100 80GB HBM3"/""/uusdc/3000000/1`, `LANE_ON_DEMAND/"NVIDIA H100 80GB HBM3"/"eu"/uusdc/3000000/1`}, s.indexKeys(false))
	s.Require().Equal([]string{`LANE_ON_DEMAND/""/""/uusdc/3000000/1`, `LANE_ON_DEMAND/""/"eu"/uusdc/3000000/1`}, s.indexKeys(true))
	o := s.offer(id)
	s.Require().Equal(types.OFFER_STATUS_OPEN, o.Status)
	s.Require().Equal(s.ctx.BlockTime(), o.UpdatedAt)
	s.Require().True(o.UpdatedAt.After(o.CreatedAt))

	// Pausing leaves the index; the GPUs stay committed to the offer.
	_, err = s.msgServer.UpdateOffer(s.ctx, &types.MsgUpdateOffer{Signer: s.operator(0), OfferId: id, Terms: t, Status: types.OFFER_STATUS_PAUSED})
	s.Require().NoError(err)
	s.Require().Empty(s.indexKeys(false))
	s.Require().Empty(s.indexKeys(true))
	s.Require().Equal(uint32(2), s.providerState(0).CommittedGpus)

	// A jailed provider may keep it paused, not reopen it.
	s.Require().NoError(s.app.ProviderKeeper.Jail(s.ctx, s.accs[0].Address, s.ctx.BlockTime().Add(time.Hour)))
	_, err = s.msgServer.UpdateOffer(s.ctx, &types.MsgUpdateOffer{Signer: s.operator(0), OfferId: id, Terms: terms(1_000_000)})
	s.Require().NoError(err)
	_, err = s.msgServer.UpdateOffer(s.ctx, &types.MsgUpdateOffer{Signer: s.operator(0), OfferId: id, Terms: t, Status: types.OFFER_STATUS_OPEN})
	s.Require().ErrorIs(err, providertypes.ErrProviderNotActive)
	s.Require().Empty(s.indexKeys(false))

	// After jail, reopening puts it back at its new price.
	s.advance(time.Hour)
	_, err = s.providers.Unjail(s.ctx, &providertypes.MsgUnjail{Operator: s.operator(0)})
	s.Require().NoError(err)
	_, err = s.msgServer.UpdateOffer(s.ctx, &types.MsgUpdateOffer{Signer: s.operator(0), OfferId: id, Terms: terms(1_000_000), Status: types.OFFER_STATUS_OPEN})
	s.Require().NoError(err)
	s.Require().Equal([]string{
		`LANE_ON_DEMAND/"NVIDIA H100 80GB HBM3"/""/uusdc/1000000/1`, `LANE_ON_DEMAND/"NVIDIA H100 80GB HBM3"/"eu"/uusdc/1000000/1`,
		`LANE_PREEMPTIBLE/"NVIDIA H100 80GB HBM3"/""/uusdc/500000/1`, `LANE_PREEMPTIBLE/"NVIDIA H100 80GB HBM3"/"eu"/uusdc/500000/1`,
		`LANE_RESERVED/"NVIDIA H100 80GB HBM3"/""/uusdc/1000000/1`, `LANE_RESERVED/"NVIDIA H100 80GB HBM3"/"eu"/uusdc/1000000/1`,
	}, s.indexKeys(false))
}

func (s *KeeperTestSuite) TestUpdateOfferRejects() {
	uuids := s.provide(0, h100, 81559, 0, 2, 2)
	id := s.create(0, uuids, terms(2_000_000))
	bad := terms(2_000_000)
	bad.Windows = []types.Window{window(s.ctx.BlockTime().Add(-time.Hour), s.ctx.BlockTime())}

	for _, tc := range []struct {
		name   string
		msg    types.MsgUpdateOffer
		expErr error
	}{
		{"unknown offer", types.MsgUpdateOffer{Signer: s.operator(0), OfferId: 9, Terms: terms(2)}, types.ErrOfferNotFound},
		{"not the provider's", types.MsgUpdateOffer{Signer: s.operator(3), OfferId: id, Terms: terms(2)}, types.ErrUnauthorized},
		{"bad signer address", types.MsgUpdateOffer{Signer: "idle1xyz", OfferId: id, Terms: terms(2)}, types.ErrInvalidAddress},
		{"window ended", types.MsgUpdateOffer{Signer: s.operator(0), OfferId: id, Terms: bad}, types.ErrInvalidWindows},
		{"close through update", types.MsgUpdateOffer{Signer: s.operator(0), OfferId: id, Terms: terms(2), Status: types.OFFER_STATUS_CLOSED}, types.ErrInvalidStatus},
		{"unknown status", types.MsgUpdateOffer{Signer: s.operator(0), OfferId: id, Terms: terms(2), Status: 9}, types.ErrInvalidStatus},
	} {
		s.Run(tc.name, func() {
			before := s.snapshot()
			_, err := s.msgServer.UpdateOffer(s.ctx, &tc.msg)
			s.Require().ErrorIs(err, tc.expErr)
			s.Require().Equal(before, s.snapshot())
		})
	}
}

func (s *KeeperTestSuite) TestCloseOfferWithoutLeasesRemovesIt() {
	uuids := s.provide(0, h100, 81559, 0, 3, 3)
	id := s.create(0, uuids, terms(2_000_000))
	_, err := s.msgServer.CloseOffer(s.ctx, &types.MsgCloseOffer{Signer: s.operator(4), OfferId: id})
	s.Require().NoError(err)

	_, err = s.keeper.Offer(s.ctx, id)
	s.Require().ErrorIs(err, types.ErrOfferNotFound)
	s.Require().Empty(s.indexKeys(false))
	s.Require().Zero(s.providerState(0).CommittedGpus)
	// The GPUs can be offered again at once, and may now be deregistered.
	s.create(0, uuids[:1], terms(1_000_000))
	_, err = s.providers.DeregisterGPU(s.ctx, &providertypes.MsgDeregisterGPU{Signer: s.operator(0), Provider: s.operator(0), Uuid: uuids[2]})
	s.Require().NoError(err)

	_, err = s.msgServer.CloseOffer(s.ctx, &types.MsgCloseOffer{Signer: s.operator(0), OfferId: id})
	s.Require().ErrorIs(err, types.ErrOfferNotFound)
}

func (s *KeeperTestSuite) TestCloseOfferKeepsLeasedGPUsUntilTheLeaseEnds() {
	uuids := s.provide(0, h100, 81559, 0, 4, 4)
	id := s.create(0, uuids, terms(2_000_000))
	s.Require().NoError(s.keeper.OccupyForLease(s.ctx, id, []string{uuids[2], uuids[0]}))
	s.Require().Equal([]string{uuids[0], uuids[2]}, s.offer(id).OccupiedGpuUuids, "kept in offer order")

	_, err := s.msgServer.CloseOffer(s.ctx, &types.MsgCloseOffer{Signer: s.operator(0), OfferId: id})
	s.Require().NoError(err)
	o := s.offer(id)
	s.Require().Equal(types.OFFER_STATUS_CLOSED, o.Status)
	s.Require().Equal([]string{uuids[0], uuids[2]}, o.GpuUuids)
	s.Require().Empty(s.indexKeys(false))
	s.Require().Equal(uint32(2), s.providerState(0).CommittedGpus, "the free GPUs were released")
	// A closed offer cannot be changed or closed again, and the leased
	// GPUs cannot join another offer yet.
	_, err = s.msgServer.UpdateOffer(s.ctx, &types.MsgUpdateOffer{Signer: s.operator(0), OfferId: id, Terms: terms(2)})
	s.Require().ErrorIs(err, types.ErrOfferClosed)
	_, err = s.msgServer.CloseOffer(s.ctx, &types.MsgCloseOffer{Signer: s.operator(0), OfferId: id})
	s.Require().ErrorIs(err, types.ErrOfferClosed)
	_, err = s.msgServer.CreateOffer(s.ctx, &types.MsgCreateOffer{Signer: s.operator(0), Provider: s.operator(0), GpuUuids: uuids[:1], Terms: terms(2)})
	s.Require().ErrorIs(err, types.ErrGPUInOffer)
	s.Require().ErrorIs(s.keeper.OccupyForLease(s.ctx, id, uuids[:1]), types.ErrOfferNotOpen)

	// The first lease ends: its GPU leaves the offer and x/provider.
	s.Require().NoError(s.keeper.VacateGPUs(s.ctx, id, uuids[:1]))
	s.Require().Equal([]string{uuids[2]}, s.offer(id).GpuUuids)
	s.Require().Equal(uint32(1), s.providerState(0).CommittedGpus)
	// The last one ends: the offer is gone.
	s.Require().NoError(s.keeper.VacateGPUs(s.ctx, id, uuids[2:3]))
	_, err = s.keeper.Offer(s.ctx, id)
	s.Require().ErrorIs(err, types.ErrOfferNotFound)
	s.Require().Zero(s.providerState(0).CommittedGpus)
	st, _, err := s.keeper.FillRate(s.ctx, s.accs[0].Address)
	s.Require().NoError(err)
	s.Require().Equal([3]uint32{0, 0, 0}, [3]uint32{st.Offers, st.OfferedGpus, st.LeasedGpus})
}

func (s *KeeperTestSuite) TestLeaseAndFreeRejects() {
	uuids := s.provide(0, h100, 81559, 0, 3, 3)
	id := s.create(0, uuids[:2], terms(2_000_000))
	s.Require().NoError(s.keeper.OccupyForLease(s.ctx, id, uuids[:1]))

	for _, tc := range []struct {
		name   string
		run    func() error
		expErr error
	}{
		{"lease in unknown offer", func() error { return s.keeper.OccupyForLease(s.ctx, 7, uuids[:1]) }, types.ErrOfferNotFound},
		{"lease nothing", func() error { return s.keeper.OccupyForLease(s.ctx, id, nil) }, types.ErrNoGPUs},
		{"lease a leased GPU", func() error { return s.keeper.OccupyForLease(s.ctx, id, uuids[:1]) }, types.ErrGPUOccupied},
		{"lease a GPU twice", func() error { return s.keeper.OccupyForLease(s.ctx, id, []string{uuids[1], uuids[1]}) }, types.ErrDuplicateGPU},
		{"lease a GPU of no offer", func() error { return s.keeper.OccupyForLease(s.ctx, id, uuids[2:]) }, types.ErrGPUNotInOffer},
		{"free a free GPU", func() error { return s.keeper.VacateGPUs(s.ctx, id, uuids[1:2]) }, types.ErrGPUNotOccupied},
		{"free a GPU of no offer", func() error { return s.keeper.VacateGPUs(s.ctx, id, uuids[2:]) }, types.ErrGPUNotInOffer},
	} {
		s.Run(tc.name, func() {
			before := s.snapshot()
			s.Require().ErrorIs(tc.run(), tc.expErr)
			s.Require().Equal(before, s.snapshot())
		})
	}
	// A paused offer's free GPUs cannot be leased; its leased ones can be freed.
	_, err := s.msgServer.UpdateOffer(s.ctx, &types.MsgUpdateOffer{Signer: s.operator(0), OfferId: id, Terms: terms(2_000_000), Status: types.OFFER_STATUS_PAUSED})
	s.Require().NoError(err)
	s.Require().ErrorIs(s.keeper.OccupyForLease(s.ctx, id, uuids[1:2]), types.ErrOfferNotOpen)
	s.Require().NoError(s.keeper.VacateGPUs(s.ctx, id, uuids[:1]))
	s.Require().Empty(s.offer(id).OccupiedGpuUuids)
}

// TestFillRateAccruesExactGPUSeconds drives a provider through offering,
// leasing, pausing and closing and checks every GPU-second.
func (s *KeeperTestSuite) TestFillRateAccruesExactGPUSeconds() {
	uuids := s.provide(0, h100, 81559, 0, 4, 4)
	since := s.ctx.BlockTime()
	id := s.create(0, uuids, terms(2_000_000)) // 4 offered

	s.advance(100 * time.Second) // 400 offered
	s.Require().NoError(s.keeper.OccupyForLease(s.ctx, id, uuids[:2]))
	s.advance(50 * time.Second) // +200 offered, +100 leased
	_, err := s.msgServer.UpdateOffer(s.ctx, &types.MsgUpdateOffer{Signer: s.operator(0), OfferId: id, Terms: terms(2_000_000), Status: types.OFFER_STATUS_PAUSED})
	s.Require().NoError(err)
	s.advance(30 * time.Second) // paused: only the 2 leased count, +60 offered, +60 leased

	res, err := s.queryServer.FillRate(s.ctx, &types.QueryFillRateRequest{Provider: s.operator(0)})
	s.Require().NoError(err)
	s.Require().Equal(uint64(660), res.Stats.OfferedGpuSeconds)
	s.Require().Equal(uint64(160), res.Stats.LeasedGpuSeconds)
	s.Require().Equal(uint32(2424), res.FillRateBps) // 160 × 10000 / 660 = 2424.24…
	s.Require().Equal(since, res.Stats.Since)
	s.Require().Equal(s.ctx.BlockTime(), res.Stats.UpdatedAt)

	// The query did not write: stored counters stop at the last change.
	stored, err := s.keeper.Stats.Get(s.ctx, s.accs[0].Address)
	s.Require().NoError(err)
	s.Require().Equal(uint64(600), stored.OfferedGpuSeconds)

	// Closing with the lease still running: the 2 leased GPUs stay offered and leased.
	_, err = s.msgServer.CloseOffer(s.ctx, &types.MsgCloseOffer{Signer: s.operator(0), OfferId: id})
	s.Require().NoError(err)
	s.advance(10 * time.Second)
	s.Require().NoError(s.keeper.VacateGPUs(s.ctx, id, uuids[:2]))
	s.advance(1000 * time.Second) // nothing offered any more
	res, err = s.queryServer.FillRate(s.ctx, &types.QueryFillRateRequest{Provider: s.operator(0)})
	s.Require().NoError(err)
	s.Require().Equal(uint64(680), res.Stats.OfferedGpuSeconds)
	s.Require().Equal(uint64(180), res.Stats.LeasedGpuSeconds)
	s.Require().Equal(uint32(2647), res.FillRateBps) // 180 × 10000 / 680 = 2647.05…
	s.Require().Zero(res.Stats.Offers)
}
