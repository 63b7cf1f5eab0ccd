package keeper_test

import (
	"time"

	"cosmossdk.io/collections"
	sdkmath "cosmossdk.io/math"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/app/apptesting"
	"github.com/idlegpu/idlegpu/x/auction/types"
)

func (s *KeeperTestSuite) TestGenesisRoundTrip() {
	params := types.DefaultParams()
	params.DefaultBidWindowBlocks = 0
	params.StartTimeoutSeconds = 1800
	gs := &types.GenesisState{Params: params, NextJobId: 1, NextLeaseId: 1, NextBidSeq: 1}

	s.Require().NoError(s.keeper.InitGenesis(s.ctx, gs))
	exported, err := s.keeper.ExportGenesis(s.ctx)
	s.Require().NoError(err)
	s.Require().Equal(gs, exported)
}

func (s *KeeperTestSuite) TestInitGenesisRejectsInvalidState() {
	params := types.DefaultParams()
	params.StartTimeoutSeconds = 0

	err := s.keeper.InitGenesis(s.ctx, &types.GenesisState{Params: params})
	s.Require().ErrorIs(err, types.ErrInvalidGenesis)
	s.Require().ErrorContains(err, "start_timeout_seconds must be greater than 0")

	got, err := s.keeper.Params.Get(s.ctx)
	s.Require().NoError(err)
	s.Require().Equal(types.DefaultParams(), got, "a rejected genesis writes nothing")
}

// TestGenesisKeepsRetirement: an ended job's prune_at survives export and
// import with its place in the pruning queue; an ended job without one, or
// a live job with one, is refused.
func (s *KeeperTestSuite) TestGenesisKeepsRetirement() {
	spec := apptesting.TrainingJob(1, 1_000_000)
	spec.DurationSeconds = 3600
	pruneAt := time.Date(2026, 12, 9, 12, 0, 0, 0, time.UTC)
	job := types.Job{
		Id: 1, Renter: sdk.AccAddress("renter______________").String(), Spec: spec,
		Deposit: sdk.NewInt64Coin(spec.MaxPrice.Denom, 1_000_000), Status: types.JOB_STATUS_EXPIRED,
		CreatedAt: pruneAt.Add(-48 * time.Hour), PruneAt: pruneAt, ClearingPrice: sdk.Coin{Amount: sdkmath.ZeroInt()},
	}
	gs := &types.GenesisState{Params: types.DefaultParams(), NextJobId: 2, NextLeaseId: 1, NextBidSeq: 1, Jobs: []types.Job{job}}
	s.Require().NoError(s.keeper.InitGenesis(s.ctx, gs))
	has, err := s.keeper.RetiredJobs.Has(s.ctx, collections.Join(pruneAt, uint64(1)))
	s.Require().NoError(err)
	s.Require().True(has)
	exported, err := s.keeper.ExportGenesis(s.ctx)
	s.Require().NoError(err)
	s.Require().Equal(gs, exported)

	unretired := job
	unretired.PruneAt = time.Time{}
	live := job
	live.Status = types.JOB_STATUS_OPEN
	for _, j := range []types.Job{unretired, live} {
		bad := *gs
		bad.Jobs = []types.Job{j}
		s.Require().ErrorContains(bad.Validate(), "prune_at")
	}
}
