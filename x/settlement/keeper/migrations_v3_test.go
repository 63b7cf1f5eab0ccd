package keeper_test

import (
	"time"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/settlement/keeper"
	"github.com/idlegpu/idlegpu/x/settlement/types"
)

// TestMigrate2to3: a version-2 chain with a live lease and a recorded halt
// gets the miss window in its params and the lease's progress, headers that
// read the lost time as it stands (so the lease's due time does not move
// for time lost before the upgrade), and no recorded halts; a step payment
// missing a payment denom stops the upgrade.
func (s *KeeperTestSuite) TestMigrate2to3() {
	s.provider(0, 1, 2_000_000)
	l := s.lease(3, 1, 3600*time.Second, 2_000_000)
	s.jumpTo(s.ctx.BlockTime().Add(10 * time.Minute)) // time lost before the upgrade
	s.Require().NoError(s.keeper.LostTime.Set(s.ctx, 540_000))
	params, err := s.keeper.Params.Get(s.ctx)
	s.Require().NoError(err)
	params.MissWindowEpochs = 0
	s.Require().NoError(s.keeper.Params.Set(s.ctx, params))
	prog := s.progress(l.Id)
	prog.MissWindowEpochs = 0
	s.Require().NoError(s.keeper.Progress.Set(s.ctx, l.Id, prog))
	store := s.ctx.KVStore(s.app.GetKey(types.StoreKey))
	store.Set(append(types.GapsKey.Bytes(), 1), []byte{1})

	s.Require().NoError(keeper.NewMigrator(s.keeper).Migrate2to3(s.ctx))

	params, err = s.keeper.Params.Get(s.ctx)
	s.Require().NoError(err)
	s.Require().EqualValues(12, params.MissWindowEpochs)
	s.Require().EqualValues(12, s.progress(l.Id).MissWindowEpochs)
	s.Require().NoError(s.keeper.Headers.Walk(s.ctx, nil, func(h int64, r types.HeaderRecord) (bool, error) {
		s.Require().EqualValues(540_000, r.LostMs, "header %d", h)
		s.Require().Zero(r.GapLostMs, "header %d", h)
		return false, nil
	}))
	it := store.Iterator(types.GapsKey.Bytes(), append(types.GapsKey.Bytes(), 0xff))
	s.Require().False(it.Valid(), "the recorded halts are gone")
	s.Require().NoError(it.Close())
	s.Require().NoError(s.keeper.CheckInvariants(s.ctx))

	// A step payment without the market's uusdc stops the upgrade.
	params.ReliabilityStepPayment = sdk.NewCoins(sdk.NewInt64Coin("ugpu", 1))
	s.Require().NoError(s.keeper.Params.Set(s.ctx, params))
	s.Require().ErrorContains(keeper.NewMigrator(s.keeper).Migrate2to3(s.ctx), `no amount for payment denom "uusdc"`)
}
