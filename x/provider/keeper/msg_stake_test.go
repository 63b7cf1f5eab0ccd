package keeper_test

import (
	"time"

	sdkmath "cosmossdk.io/math"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/provider/types"
)

func (s *KeeperTestSuite) TestBond() {
	s.register(0)
	op := s.accs[0].Address
	s.Require().Equal(types.PROVIDER_STATUS_INACTIVE, s.provider(0).Status)

	res, err := s.msgServer.Bond(s.ctx, &types.MsgBond{Operator: s.operator(0), Amount: ugpu(60_000_000)})
	s.Require().NoError(err)
	s.Require().Equal(ugpu(60_000_000), res.Stake)
	s.Require().Equal(types.PROVIDER_STATUS_INACTIVE, s.provider(0).Status, "60 GPU tokens do not cover one GPU")

	_, err = s.msgServer.Bond(s.ctx, &types.MsgBond{Operator: s.operator(0), Amount: ugpu(40_000_000)})
	s.Require().NoError(err)
	s.Require().Equal(types.PROVIDER_STATUS_ACTIVE, s.provider(0).Status, "100 GPU tokens cover one GPU")
	s.Require().Equal(ugpu(100_000_000), s.provider(0).Stake)
	s.Require().Equal(startBalance.SubRaw(100_000_000), s.balance(op), "the operator paid exactly what it bonded")
	s.Require().Equal(sdkmath.NewInt(100_000_000), s.moduleBalance(), "the module account holds it")
	s.requireEvent(&types.EventStatusChanged{Provider: s.operator(0), From: types.PROVIDER_STATUS_INACTIVE, To: types.PROVIDER_STATUS_ACTIVE})

	for _, tc := range []struct {
		name   string
		msg    *types.MsgBond
		expErr error
	}{
		{"wrong denom", &types.MsgBond{Operator: s.operator(0), Amount: sdk.NewInt64Coin("uusdc", 5)}, types.ErrInvalidStake},
		{"zero", &types.MsgBond{Operator: s.operator(0), Amount: ugpu(0)}, types.ErrInvalidStake},
		{"negative", &types.MsgBond{Operator: s.operator(0), Amount: sdk.Coin{Denom: "ugpu", Amount: sdkmath.NewInt(-5)}}, types.ErrInvalidStake},
		{"not a provider", &types.MsgBond{Operator: s.operator(1), Amount: ugpu(5)}, types.ErrProviderNotFound},
	} {
		s.Run(tc.name, func() {
			before := s.snapshot()
			_, err := s.msgServer.Bond(s.ctx, tc.msg)
			s.Require().ErrorIs(err, tc.expErr)
			s.Require().Equal(before, s.snapshot())
		})
	}
	s.Run("more than the balance", func() {
		before := s.snapshot()
		_, err := s.msgServer.Bond(s.ctx, &types.MsgBond{Operator: s.operator(0), Amount: sdk.NewCoin("ugpu", startBalance)})
		s.Require().ErrorContains(err, "insufficient funds")
		s.Require().Equal(before, s.snapshot())
	})
	s.Run("tombstoned", func() {
		s.Require().NoError(s.keeper.Tombstone(s.ctx, op))
		before := s.snapshot()
		_, err := s.msgServer.Bond(s.ctx, &types.MsgBond{Operator: s.operator(0), Amount: ugpu(5)})
		s.Require().ErrorIs(err, types.ErrTombstoned)
		s.Require().Equal(before, s.snapshot())
	})
}

func (s *KeeperTestSuite) TestUnbond() {
	setup := func() {
		s.SetupTest()
		s.register(0)
		s.bond(0, 350_000_000)
		uuids := s.registerGPUs(0, 0, 3)
		s.Require().NoError(s.keeper.CommitGPUs(s.ctx, s.accs[0].Address, uuids[:2])) // needs 200 GPU tokens
	}
	s.Run("stake moves into the queue", func() {
		setup()
		res, err := s.msgServer.Unbond(s.ctx, &types.MsgUnbond{Operator: s.operator(0), Amount: ugpu(150_000_000)})
		s.Require().NoError(err)
		completes := s.ctx.BlockTime().Add(336 * time.Hour)
		s.Require().Equal(&types.MsgUnbondResponse{Id: 1, CompletesAt: completes}, res)
		p := s.provider(0)
		s.Require().Equal(ugpu(200_000_000), p.Stake)
		s.Require().Equal(ugpu(150_000_000), p.Unbonding)
		s.Require().Equal(types.PROVIDER_STATUS_ACTIVE, p.Status)
		s.Require().Equal(sdkmath.NewInt(350_000_000), s.moduleBalance(), "unbonding stake stays in the module until it completes")
		entries, err := s.queryServer.Unbondings(s.ctx, &types.QueryUnbondingsRequest{Provider: s.operator(0)})
		s.Require().NoError(err)
		s.Require().Equal([]types.UnbondingEntry{{Id: 1, Provider: s.operator(0), Amount: ugpu(150_000_000), CompletesAt: completes}}, entries.Unbondings)
		s.requireEvent(&types.EventUnbondingStarted{Provider: s.operator(0), Id: 1, Amount: ugpu(150_000_000), CompletesAt: completes})
	})
	for _, tc := range []struct {
		name   string
		setup  func()
		amount sdk.Coin
		expErr error
	}{
		{"below what committed GPUs need", nil, ugpu(150_000_001), types.ErrInsufficientStake},
		{"more than bonded", nil, ugpu(350_000_001), types.ErrInsufficientStake},
		{"wrong denom", nil, sdk.NewInt64Coin("uusdc", 1), types.ErrInvalidStake},
		{"zero", nil, ugpu(0), types.ErrInvalidStake},
		{"past max_unbonding_entries", func() {
			s.setParams(func(p *types.Params) { p.MaxUnbondingEntries = 2 })
			for range 2 {
				_, err := s.msgServer.Unbond(s.ctx, &types.MsgUnbond{Operator: s.operator(0), Amount: ugpu(1)})
				s.Require().NoError(err)
			}
		}, ugpu(1), types.ErrTooManyUnbondings},
	} {
		s.Run(tc.name, func() {
			setup()
			if tc.setup != nil {
				tc.setup()
			}
			before := s.snapshot()
			_, err := s.msgServer.Unbond(s.ctx, &types.MsgUnbond{Operator: s.operator(0), Amount: tc.amount})
			s.Require().ErrorIs(err, tc.expErr)
			s.Require().Equal(before, s.snapshot())
		})
	}
	s.Run("a tombstoned provider withdraws what is left", func() {
		setup()
		s.Require().NoError(s.keeper.ReleaseGPUs(s.ctx, s.accs[0].Address, []string{gpu(0).Uuid, gpu(1).Uuid}))
		s.Require().NoError(s.keeper.Tombstone(s.ctx, s.accs[0].Address))
		_, err := s.msgServer.Unbond(s.ctx, &types.MsgUnbond{Operator: s.operator(0), Amount: ugpu(350_000_000)})
		s.Require().NoError(err)
		s.Require().Equal(types.PROVIDER_STATUS_TOMBSTONED, s.provider(0).Status)
	})
}

func (s *KeeperTestSuite) TestUnbondingCompletesAfterThePeriod() {
	s.register(0)
	s.register(1)
	s.bond(0, 500)
	s.bond(1, 500)
	start := s.ctx.BlockTime()
	unbond := func(i int, amount int64, at time.Time) {
		_, err := s.msgServer.Unbond(s.ctx.WithBlockTime(at), &types.MsgUnbond{Operator: s.operator(i), Amount: ugpu(amount)})
		s.Require().NoError(err)
	}
	unbond(0, 100, start)                  // id 1, due start+336h
	unbond(1, 200, start.Add(time.Minute)) // id 2, due a minute later
	unbond(0, 50, start)                   // id 3, due with id 1
	period := 336 * time.Hour

	// One second early: nothing completes.
	n, err := s.keeper.CompleteUnbondings(s.ctx.WithBlockTime(start.Add(period - time.Second)))
	s.Require().NoError(err)
	s.Require().Zero(n)

	// At the due time, with room for one per block: the oldest (lowest id) first.
	s.setParams(func(p *types.Params) { p.MaxUnbondingsPerBlock = 1 })
	due := s.ctx.WithBlockTime(start.Add(period))
	n, err = s.keeper.CompleteUnbondings(due)
	s.Require().NoError(err)
	s.Require().Equal(1, n)
	s.Require().Equal(startBalance.SubRaw(500).AddRaw(100), s.balance(s.accs[0].Address))
	s.Require().Equal(ugpu(50), s.provider(0).Unbonding)

	// The next block completes id 3; id 2 is not due yet.
	n, err = s.keeper.CompleteUnbondings(due)
	s.Require().NoError(err)
	s.Require().Equal(1, n)
	n, err = s.keeper.CompleteUnbondings(due)
	s.Require().NoError(err)
	s.Require().Zero(n)
	s.Require().Equal(startBalance.SubRaw(500).AddRaw(150), s.balance(s.accs[0].Address))
	s.Require().Equal(ugpu(0), s.provider(0).Unbonding)
	s.Require().Equal(ugpu(350), s.provider(0).Stake)

	// A minute later id 2 completes, through the real EndBlock.
	s.setParams(func(p *types.Params) { p.MaxUnbondingsPerBlock = 100 })
	s.ctx = s.ctx.WithBlockTime(start.Add(period + time.Minute))
	s.Require().NoError(s.keeper.EndBlocker(s.ctx))
	s.Require().Equal(startBalance.SubRaw(500).AddRaw(200), s.balance(s.accs[1].Address))
	s.Require().Equal(sdkmath.NewInt(350+300), s.moduleBalance())
	s.requireEvent(&types.EventUnbondingCompleted{Provider: s.operator(1), Id: 2, Amount: ugpu(200)})
	left, err := s.queryServer.Unbondings(s.ctx, &types.QueryUnbondingsRequest{Provider: s.operator(1)})
	s.Require().NoError(err)
	s.Require().Empty(left.Unbondings)
}
