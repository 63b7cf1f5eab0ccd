package keeper_test

import (
	"time"

	"cosmossdk.io/collections"
	sdkmath "cosmossdk.io/math"

	sdk "github.com/cosmos/cosmos-sdk/types"
	authtypes "github.com/cosmos/cosmos-sdk/x/auth/types"
	banktypes "github.com/cosmos/cosmos-sdk/x/bank/types"

	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
	"github.com/idlegpu/idlegpu/x/base/chaincfg"
	"github.com/idlegpu/idlegpu/x/settlement/types"
)

// TestTenEpochLeasePaysExactly: a lease of 10 epochs proven one by one pays
// exactly floor(p × gpus × duration / 3600) out of escrow in all, fee
// included; the renter gets the rest back; the lease completes; the
// provider claims its rewards.
func (s *KeeperTestSuite) TestTenEpochLeasePaysExactly() {
	const price = 1_234_567 // uusdc per GPU-hour: nothing divides evenly
	s.provider(0, 2, price)
	renterBefore := s.usdc(s.accs[3].Address)
	feesBefore := s.usdc(authtypes.NewModuleAddress(authtypes.FeeCollectorName))
	l := s.lease(3, 2, 6000*time.Second, 2_000_000) // 10 epochs of 600 s
	s.Require().Equal(auctiontypes.LEASE_STATUS_ACTIVE, l.Status)
	s.Require().Equal(int64(price), l.Price.Amount.Int64(), "one provider: it is paid its ask")

	var paid, fees sdkmath.Int = sdkmath.ZeroInt(), sdkmath.ZeroInt()
	for k := range uint64(10) {
		_, to, _ := types.EpochWindow(l.Start, l.DurationSeconds, 600, k)
		s.until(to)
		res, err := s.submit(agent, 0, s.proof(l, k, 500))
		s.Require().NoError(err, "epoch %d", k)
		rec, err := s.keeper.Proofs.Get(s.ctx, collections.Join(l.Id, k))
		s.Require().NoError(err)
		s.Require().Equal(res.Paid, sdk.NewCoins(rec.Paid))
		// 2% of the lease's cumulative payments, rounded down, less the
		// fees already taken: the fees sum to 2% of the total exactly.
		after := paid.Add(rec.Paid.Amount)
		s.Require().Equal(after.MulRaw(200).QuoRaw(10_000).Sub(paid.MulRaw(200).QuoRaw(10_000)), rec.Fee.Amount)
		paid, fees = after, fees.Add(rec.Fee.Amount)
	}
	total := sdkmath.NewInt(price * 2 * 6000 / 3600) // 4,115,223 (floor of 4,115,223.3)
	s.Require().Equal(int64(4_115_223), total.Int64())
	s.Require().Equal(total, paid, "the epochs pay the lease to the unit")
	final := s.getLease(l.Id)
	s.Require().Equal(auctiontypes.LEASE_STATUS_COMPLETED, final.Status)
	s.Require().Equal(total, final.Paid.Amount)
	s.Require().Equal(renterBefore.Sub(total), s.usdc(s.accs[3].Address), "the renter paid exactly the lease; the rest of the deposit came back")
	s.Require().Equal(feesBefore.Add(fees), s.usdc(authtypes.NewModuleAddress(authtypes.FeeCollectorName)))
	s.Require().Equal(sdk.NewCoins(sdk.NewCoin(chaincfg.USDCDenom, total.Sub(fees))), s.rewards(0))
	rep, err := s.app.ProviderKeeper.Reputations.Get(s.ctx, s.accs[0].Address)
	s.Require().NoError(err)
	s.Require().EqualValues(10, rep.ProvenEpochs)
	s.Require().EqualValues(1, rep.LeasesCompleted)

	before := s.usdc(s.accs[0].Address)
	res, err := s.msgServer.ClaimRewards(s.ctx, &types.MsgClaimRewards{Operator: s.operator(0)})
	s.Require().NoError(err)
	s.Require().Equal(sdk.NewCoins(sdk.NewCoin(chaincfg.USDCDenom, total.Sub(fees))), res.Claimed)
	s.Require().Equal(before.Add(total.Sub(fees)), s.usdc(s.accs[0].Address))
	s.Require().Empty(s.rewards(0))
	_, err = s.msgServer.ClaimRewards(s.ctx, &types.MsgClaimRewards{Operator: s.operator(0)})
	s.Require().ErrorIs(err, types.ErrNoRewards)
}

// TestProofRejections: each bad proof is refused with its typed error and
// moves nothing.
func (s *KeeperTestSuite) TestProofRejections() {
	s.provider(0, 2, 1_000_000)
	s.provider(1, 1, 1_000_000)
	l := s.lease(3, 2, 1800*time.Second, 2_000_000)     // provider 0: 3 epochs
	other := s.lease(4, 1, 1800*time.Second, 2_000_000) // provider 1 (provider 0 has no GPU left)
	s.Require().Equal(s.operator(1), other.Provider)
	_, to, _ := types.EpochWindow(l.Start, l.DurationSeconds, 600, 0)
	s.until(to)
	good := s.proof(l, 0, 500)

	escrow := s.usdc(authtypes.NewModuleAddress(auctiontypes.EscrowAccount))
	edit := func(f func(*types.ExecutionProof)) types.ExecutionProof {
		p := good
		p.Gpus = append([]types.GPUSummary(nil), good.Gpus...)
		f(&p)
		return p
	}
	for _, tc := range []struct {
		name     string
		signer   int
		provider int
		proof    types.ExecutionProof
		err      error
	}{
		{"future epoch", agent, 0, edit(func(p *types.ExecutionProof) {
			p.Epoch = 1
			p.WindowStart, p.WindowEnd = p.WindowStart.Add(600*time.Second), p.WindowEnd.Add(600*time.Second)
		}), types.ErrEpochNotEnded},
		{"past the last epoch", agent, 0, edit(func(p *types.ExecutionProof) { p.Epoch = 3 }), types.ErrWrongWindow},
		{"shifted window", agent, 0, edit(func(p *types.ExecutionProof) { p.WindowStart = p.WindowStart.Add(time.Second) }), types.ErrWrongWindow},
		{"foreign challenge hash", agent, 0, edit(func(p *types.ExecutionProof) { p.ChallengeHash = headerHash(p.ChallengeHeight + 1) }), types.ErrBadChallenge},
		{"challenge before the window", agent, 0, edit(func(p *types.ExecutionProof) {
			p.ChallengeHeight = s.ctx.BlockHeight() - 12 // an earlier block, recorded, but before the window
			p.ChallengeHash = headerHash(p.ChallengeHeight)
		}), types.ErrBadChallenge},
		{"unknown challenge height", agent, 0, edit(func(p *types.ExecutionProof) { p.ChallengeHeight = 1 << 40 }), types.ErrBadChallenge},
		{"stranger", 4, 0, good, types.ErrUnauthorized},
		{"another provider's lease", agent, 0, edit(func(p *types.ExecutionProof) { p.LeaseId = other.Id }), types.ErrUnauthorized},
		{"GPU outside the lease", agent, 0, edit(func(p *types.ExecutionProof) { p.Gpus[1].Uuid = other.GpuUuids[0] }), types.ErrGPUSetMismatch},
		{"missing GPU", agent, 0, edit(func(p *types.ExecutionProof) { p.Gpus = p.Gpus[:1] }), types.ErrGPUSetMismatch},
		{"too few samples", agent, 0, edit(func(p *types.ExecutionProof) { p.Gpus[0].Samples = 100 }), types.ErrTooFewSamples},
		{"more samples than intervals", agent, 0, edit(func(p *types.ExecutionProof) { p.Gpus[0].Samples = 122 }), types.ErrImplausible},
		{"energy above 110% of max", agent, 0, edit(func(p *types.ExecutionProof) { p.Gpus[0].EnergyMj = 700*600*1100 + 1 }), types.ErrImplausible},
		{"energy below half idle", agent, 0, edit(func(p *types.ExecutionProof) { p.Gpus[0].EnergyMj = 70*600*500 - 1 }), types.ErrImplausible},
		{"no job process", agent, 0, edit(func(p *types.ExecutionProof) { p.Gpus[0].ProcsMin = 0 }), types.ErrImplausible},
		{"more memory than the GPU", agent, 0, edit(func(p *types.ExecutionProof) { p.Gpus[0].MemUsedMaxMib = 81_560 }), types.ErrImplausible},
		{"malformed root", agent, 0, edit(func(p *types.ExecutionProof) { p.SamplesRoot = p.SamplesRoot[:8] }), types.ErrInvalidProof},
	} {
		s.Run(tc.name, func() {
			_, err := s.submit(tc.signer, tc.provider, tc.proof)
			s.Require().ErrorIs(err, tc.err)
			s.Require().Equal(escrow, s.usdc(authtypes.NewModuleAddress(auctiontypes.EscrowAccount)), "nothing paid")
			s.Require().Empty(s.rewards(0))
		})
	}

	// A message with one bad proof fails as a whole; the tx's cache store
	// is dropped, so its good proofs pay nothing either.
	for _, proofs := range [][]types.ExecutionProof{
		{edit(func(p *types.ExecutionProof) { p.Gpus[0].ProcsMin = 0 }), good},
		{good, good}, // the same epoch twice in one message
	} {
		cc, _ := s.ctx.CacheContext()
		_, err := s.msgServer.SubmitProofs(cc, &types.MsgSubmitProofs{Signer: s.operator(agent), Provider: s.operator(0), Proofs: proofs})
		s.Require().Error(err)
		s.Require().Equal(escrow, s.usdc(authtypes.NewModuleAddress(auctiontypes.EscrowAccount)))
	}
	_, err := s.msgServer.SubmitProofs(s.ctx, &types.MsgSubmitProofs{Signer: s.operator(agent), Provider: s.operator(0)})
	s.Require().ErrorIs(err, types.ErrNoProofs, "an empty message")

	// The good proof pays; replayed, it is refused.
	_, err = s.submit(agent, 0, good)
	s.Require().NoError(err)
	_, err = s.submit(agent, 0, good)
	s.Require().ErrorIs(err, types.ErrEpochProven)

	// A stale challenge: a header from epoch 0's window cannot back epoch 1.
	_, to1, _ := types.EpochWindow(l.Start, l.DurationSeconds, 600, 1)
	s.until(to1)
	p1 := s.proof(l, 1, 500)
	p1.ChallengeHeight, p1.ChallengeHash = good.ChallengeHeight, good.ChallengeHash
	_, err = s.submit(agent, 0, p1)
	s.Require().ErrorIs(err, types.ErrBadChallenge)
}

// TestOneMessageManyLeases: a MsgSubmitProofs proving an epoch of each of
// two leases pays every epoch exactly what it would alone, and moves the
// coins once: one transfer out of escrow, one to the fee collector.
func (s *KeeperTestSuite) TestOneMessageManyLeases() {
	const price = 1_234_567 // uusdc per GPU-hour
	s.provider(0, 2, price)
	a := s.lease(3, 1, 1800*time.Second, 2_000_000) // 3 epochs of 600 s each
	b := s.lease(3, 1, 1800*time.Second, 2_000_000)
	escrow := authtypes.NewModuleAddress(auctiontypes.EscrowAccount)
	collector := authtypes.NewModuleAddress(authtypes.FeeCollectorName)
	escrowBefore, feesBefore := s.usdc(escrow), s.usdc(collector)
	// Each epoch of both leases in one message, within its proof grace.
	var paid sdk.Coins
	for k := range uint64(2) {
		for _, l := range []auctiontypes.Lease{a, b} {
			_, to, _ := types.EpochWindow(l.Start, l.DurationSeconds, 600, k)
			s.until(to)
		}
		ctx := s.ctx.WithEventManager(sdk.NewEventManager())
		res, err := s.msgServer.SubmitProofs(ctx, &types.MsgSubmitProofs{Signer: s.operator(agent), Provider: s.operator(0),
			Proofs: []types.ExecutionProof{s.proof(a, k, 500), s.proof(b, k, 500)}})
		s.Require().NoError(err, "epoch %d", k)
		paid = paid.Add(res.Paid...)
		transfers := 0
		for _, e := range ctx.EventManager().Events() {
			if e.Type == banktypes.EventTypeTransfer {
				transfers++
			}
		}
		s.Require().Equal(2, transfers, "escrow → settlement and settlement → fee collector, once each for the message")
	}

	due := func(seconds int64) int64 { return price * seconds / 3600 } // one GPU, rounded down
	pays := []int64{due(600), due(1200) - due(600)}                    // 205,761 then 205,761 (of 411,522)
	var fees int64
	for _, l := range []auctiontypes.Lease{a, b} {
		for k, pay := range pays {
			rec, err := s.keeper.Proofs.Get(s.ctx, collections.Join(l.Id, uint64(k)))
			s.Require().NoError(err)
			s.Require().Equal(pay, rec.Paid.Amount.Int64(), "lease %d epoch %d", l.Id, k)
			s.Require().Equal(pay*200/10_000, rec.Fee.Amount.Int64())
			fees += pay * 200 / 10_000
		}
		s.Require().Equal(due(1200), s.getLease(l.Id).Paid.Amount.Int64())
	}
	total := 2 * due(1200)
	s.Require().Equal(sdk.NewCoins(sdk.NewInt64Coin(chaincfg.USDCDenom, total)), paid)
	s.Require().Equal(escrowBefore.SubRaw(total), s.usdc(escrow))
	s.Require().Equal(feesBefore.AddRaw(fees), s.usdc(collector))
	s.Require().Equal(sdk.NewCoins(sdk.NewInt64Coin(chaincfg.USDCDenom, total-fees)), s.rewards(0))
}

// TestOneMessageEveryEpochOfALease: a lease's epochs proven in one message
// are each priced on what the ones before it paid, the message pays the
// lease to the unit in one transfer, and the last ends it with the exact
// refund. The same epoch twice in one message pays nothing: a provider
// cannot be paid twice for one window by batching.
func (s *KeeperTestSuite) TestOneMessageEveryEpochOfALease() {
	const price = 1_234_567 // uusdc per GPU-hour
	s.provider(0, 1, price)
	renterBefore := s.usdc(s.accs[3].Address)
	l := s.lease(3, 1, 660*time.Second, 2_000_000) // epochs of 600 s and 60 s
	escrow := authtypes.NewModuleAddress(auctiontypes.EscrowAccount)
	_, to, _ := types.EpochWindow(l.Start, l.DurationSeconds, 600, 1)
	s.until(to) // within epoch 0's grace (300 s)

	escrowBefore := s.usdc(escrow)
	twice := []types.ExecutionProof{s.proof(l, 0, 500), s.proof(l, 0, 500)}
	_, err := s.submit(agent, 0, twice...)
	s.Require().ErrorIs(err, types.ErrEpochProven)
	s.Require().Equal(escrowBefore, s.usdc(escrow), "nothing paid")
	s.Require().True(s.getLease(l.Id).Paid.IsZero())

	ctx := s.ctx.WithEventManager(sdk.NewEventManager())
	res, err := s.msgServer.SubmitProofs(ctx, &types.MsgSubmitProofs{Signer: s.operator(agent), Provider: s.operator(0),
		Proofs: []types.ExecutionProof{s.proof(l, 0, 500), s.proof(l, 1, 500)}})
	s.Require().NoError(err)
	transfers := 0
	for _, e := range ctx.EventManager().Events() {
		if e.Type == banktypes.EventTypeTransfer {
			transfers++
		}
	}
	s.Require().Equal(3, transfers, "escrow → settlement and settlement → fee collector once each for the message, and the unpaid rest to the renter as the lease ends")

	due := func(seconds int64) int64 { return price * seconds / 3600 }
	total := due(660) // 226,337
	s.Require().Equal(sdk.NewCoins(sdk.NewInt64Coin(chaincfg.USDCDenom, total)), res.Paid)
	for k, pay := range []int64{due(600), due(660) - due(600)} {
		rec, err := s.keeper.Proofs.Get(s.ctx, collections.Join(l.Id, uint64(k)))
		s.Require().NoError(err)
		s.Require().Equal(pay, rec.Paid.Amount.Int64(), "epoch %d", k)
	}
	final := s.getLease(l.Id)
	s.Require().Equal(auctiontypes.LEASE_STATUS_COMPLETED, final.Status)
	s.Require().Equal(total, final.Paid.Amount.Int64())
	s.Require().Equal(renterBefore.SubRaw(total), s.usdc(s.accs[3].Address), "the renter paid exactly the lease")
}
