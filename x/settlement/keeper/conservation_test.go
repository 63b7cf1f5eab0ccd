package keeper_test

import (
	"time"

	sdkmath "cosmossdk.io/math"

	authtypes "github.com/cosmos/cosmos-sdk/x/auth/types"

	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
	"github.com/idlegpu/idlegpu/x/settlement/types"
)

// TestLeaseConservation: however a lease ends, every unit the renter put
// in is accounted for: renter's net spend == provider's rewards + protocol
// fee, the escrow account holds nothing of it afterwards, and the provider
// is paid exactly floor(p × gpus × proven seconds / 3600), the fee being
// floor(payment × take_rate) of each epoch's payment.
func (s *KeeperTestSuite) TestLeaseConservation() {
	const price = 3_333_337 // uusdc per GPU-hour, so every product has a remainder
	for _, tc := range []struct {
		name    string
		proven  int // epochs proven, in order, before the ending
		end     func(l auctiontypes.Lease)
		status  auctiontypes.LeaseStatus
		seconds func(l auctiontypes.Lease) uint64
	}{
		{"completed, every epoch proven", 3, func(auctiontypes.Lease) {}, auctiontypes.LEASE_STATUS_COMPLETED,
			func(l auctiontypes.Lease) uint64 { return l.DurationSeconds }},
		{"renter closes after one epoch", 1, func(l auctiontypes.Lease) {
			_, err := s.auction.CloseLease(s.ctx, &auctiontypes.MsgCloseLease{Signer: s.operator(3), LeaseId: l.Id, Reason: "done early"})
			s.Require().NoError(err)
		}, auctiontypes.LEASE_STATUS_CLOSED, func(auctiontypes.Lease) uint64 { return 600 }},
		{"one epoch proven, then two missed", 1, func(l auctiontypes.Lease) {
			_, end, _ := types.EpochWindow(l.Start, l.DurationSeconds, 600, 2)
			s.until(end.Add(301 * time.Second))
			s.nextBlock()
		}, auctiontypes.LEASE_STATUS_FAILED, func(auctiontypes.Lease) uint64 { return 600 }},
		{"fraud after two epochs", 2, func(l auctiontypes.Lease) {
			_, err := s.app.AuctionKeeper.EndProviderLeases(s.ctx, s.accs[0].Address, auctiontypes.LEASE_STATUS_SLASHED, "fraud")
			s.Require().NoError(err)
		}, auctiontypes.LEASE_STATUS_SLASHED, func(auctiontypes.Lease) uint64 { return 1200 }},
	} {
		s.Run(tc.name, func() {
			s.SetupTest()
			s.provider(0, 2, price)
			feeAddr := authtypes.NewModuleAddress(authtypes.FeeCollectorName)
			escrowAddr := authtypes.NewModuleAddress(auctiontypes.EscrowAccount)
			renterBefore, feeBefore, escrowBefore := s.usdc(s.accs[3].Address), s.usdc(feeAddr), s.usdc(escrowAddr)

			l := s.lease(3, 2, 1700*time.Second, 4_000_000) // 3 epochs: 600 + 600 + 500 s
			for k := range tc.proven {
				_, end, _ := types.EpochWindow(l.Start, l.DurationSeconds, 600, uint64(k))
				s.until(end)
				_, err := s.submit(agent, 0, s.proof(l, uint64(k), 400))
				s.Require().NoError(err)
			}
			tc.end(l)
			final := s.getLease(l.Id)
			s.Require().Equal(tc.status, final.Status)

			params, err := s.keeper.Params.Get(s.ctx)
			s.Require().NoError(err)
			// Each proof pays the cumulative amount due minus what was
			// paid; the fee is take_rate of the lease's total, rounded
			// down once (cumulative per lease, so epochs cannot round it away).
			due := func(sec uint64) sdkmath.Int { return sdkmath.NewInt(price * 2).MulRaw(int64(sec)).QuoRaw(3600) }
			paid := sdkmath.ZeroInt()
			for k := range tc.proven {
				_, end, _ := types.EpochWindow(l.Start, l.DurationSeconds, 600, uint64(k))
				paid = paid.Add(due(uint64(end.Sub(l.Start) / time.Second)).Sub(paid))
			}
			fee := paid.MulRaw(int64(params.TakeRateBps)).QuoRaw(10_000)
			s.Require().Equal(due(tc.seconds(l)), paid)
			s.Require().Equal(paid, final.Paid.Amount)
			spent := renterBefore.Sub(s.usdc(s.accs[3].Address))
			earned := s.rewards(0).AmountOf(final.Paid.Denom)
			s.Require().Equal(paid, spent, "the renter pays exactly the proven time")
			s.Require().Equal(paid.Sub(fee), earned)
			s.Require().Equal(fee, s.usdc(feeAddr).Sub(feeBefore))
			s.Require().Equal(spent, earned.Add(s.usdc(feeAddr).Sub(feeBefore)), "escrow = rewards + fee + refund")
			s.Require().Equal(escrowBefore, s.usdc(escrowAddr), "nothing of the lease is left in escrow")
		})
	}
}
