package keeper_test

import (
	"time"

	sdk "github.com/cosmos/cosmos-sdk/types"
	minttypes "github.com/cosmos/cosmos-sdk/x/mint/types"

	"github.com/idlegpu/idlegpu/x/provider/types"
)

// TestGenesisRoundTrip exports a populated module, imports it into a fresh
// app and requires the same export back, plus a working state (queue, seq).
func (s *KeeperTestSuite) TestGenesisRoundTrip() {
	s.register(0, s.operator(1))
	s.register(2)
	s.bond(0, 300_000_000)
	s.bond(2, 100_000_000)
	uuids := s.registerGPUs(0, 0, 3)
	s.registerGPUs(2, 10, 2)
	s.Require().NoError(s.deregister(2, gpu(11).Uuid))
	s.Require().NoError(s.keeper.CommitGPUs(s.ctx, s.accs[0].Address, uuids[:2]))
	_, err := s.msgServer.Unbond(s.ctx, &types.MsgUnbond{Operator: s.operator(0), Amount: ugpu(50_000_000)})
	s.Require().NoError(err)
	s.Require().NoError(s.keeper.RecordEpoch(s.ctx, s.accs[0].Address, false))
	s.Require().NoError(s.keeper.Jail(s.ctx, s.accs[2].Address, s.ctx.BlockTime().Add(time.Hour)))

	exported, err := s.keeper.ExportGenesis(s.ctx)
	s.Require().NoError(err)
	s.Require().NoError(exported.Validate())
	s.Require().Len(exported.Providers, 2)
	s.Require().Len(exported.Gpus, 4)
	s.Require().Equal([]types.GPUHistory{{Uuid: gpu(11).Uuid, Provider: s.operator(2), ReliabilityBps: 9000}}, exported.GpuHistories)
	s.Require().Len(exported.Unbondings, 1)
	s.Require().EqualValues(2, exported.NextUnbondingId)

	// Import into a fresh chain. The stake's coins are x/bank's genesis, so
	// give the new module account what the old one held.
	held := sdk.NewCoins(sdk.NewCoin("ugpu", s.moduleBalance()))
	s.SetupTest()
	s.Require().NoError(s.app.BankKeeper.MintCoins(s.ctx, minttypes.ModuleName, held))
	s.Require().NoError(s.app.BankKeeper.SendCoinsFromModuleToModule(s.ctx, minttypes.ModuleName, types.ModuleName, held))
	s.Require().NoError(s.keeper.InitGenesis(s.ctx, exported))
	again, err := s.keeper.ExportGenesis(s.ctx)
	s.Require().NoError(err)
	s.Require().Equal(exported, again)

	// The imported queue and sequence work: the next entry gets id 2 and the
	// imported one still completes.
	_, err = s.msgServer.Bond(s.ctx, &types.MsgBond{Operator: s.operator(0), Amount: ugpu(1)})
	s.Require().NoError(err)
	res, err := s.msgServer.Unbond(s.ctx, &types.MsgUnbond{Operator: s.operator(0), Amount: ugpu(1)})
	s.Require().NoError(err)
	s.Require().EqualValues(2, res.Id)
}

func (s *KeeperTestSuite) TestInitGenesisRejectsInvalidState() {
	params := types.DefaultParams()
	params.JailDurationSeconds = 0

	err := s.keeper.InitGenesis(s.ctx, &types.GenesisState{Params: params, NextUnbondingId: 1})
	s.Require().ErrorIs(err, types.ErrInvalidGenesis)
	s.Require().ErrorContains(err, "jail_duration_seconds must be greater than 0")

	got, err := s.keeper.Params.Get(s.ctx)
	s.Require().NoError(err)
	s.Require().Equal(types.DefaultParams(), got, "a rejected genesis writes nothing")
}
