package keeper_test

import (
	"time"

	"github.com/cosmos/cosmos-sdk/runtime"
	storetypes "github.com/cosmos/cosmos-sdk/store/v2/types"
	"github.com/cosmos/cosmos-sdk/testutil"
	authtypes "github.com/cosmos/cosmos-sdk/x/auth/types"

	"github.com/idlegpu/idlegpu/x/settlement/keeper"
	"github.com/idlegpu/idlegpu/x/settlement/types"
)

// TestGenesisRoundTrip: the state after real proofs (headers, progress,
// proofs, rewards) exports, imports into an empty store, and exports again
// unchanged.
func (s *KeeperTestSuite) TestGenesisRoundTrip() {
	s.provider(0, 1, 1_000_000)
	l := s.lease(3, 1, 1200*time.Second, 2_000_000)
	_, to, _ := types.EpochWindow(l.Start, l.DurationSeconds, 600, 0)
	s.until(to)
	_, err := s.submit(agent, 0, s.proof(l, 0, 400))
	s.Require().NoError(err)

	exported, err := s.keeper.ExportGenesis(s.ctx)
	s.Require().NoError(err)
	s.Require().NotEmpty(exported.Headers)
	s.Require().Len(exported.Progress, 1)
	s.Require().Len(exported.Proofs, 1)
	s.Require().Len(exported.Rewards, 1)

	key := storetypes.NewKVStoreKey(types.StoreKey)
	fresh := testutil.DefaultContextWithDB(s.T(), key, storetypes.NewTransientStoreKey("t")).Ctx
	k := keeper.NewKeeper(s.app.AppCodec(), runtime.NewKVStoreService(key), s.addrCodec, nil, nil, nil, authtypes.FeeCollectorName, s.authority)
	s.Require().NoError(k.InitGenesis(fresh, exported))
	again, err := k.ExportGenesis(fresh)
	s.Require().NoError(err)
	s.Require().Equal(exported, again)
}

func (s *KeeperTestSuite) TestInitGenesisRejectsInvalidState() {
	params := types.DefaultParams()
	params.ProofGraceSeconds = 0
	err := s.keeper.InitGenesis(s.ctx, &types.GenesisState{Params: params})
	s.Require().ErrorIs(err, types.ErrInvalidGenesis)
	s.Require().ErrorContains(err, "proof_grace_seconds must be greater than 0")

	for name, gs := range map[string]types.GenesisState{
		"short header hash":        {Params: types.DefaultParams(), Headers: []types.HeaderRecord{{Height: 1, Hash: []byte{1}}}},
		"headers out of order":     {Params: types.DefaultParams(), Headers: []types.HeaderRecord{{Height: 2, Hash: headerHash(2)}, {Height: 1, Hash: headerHash(1)}}},
		"progress without epoch":   {Params: types.DefaultParams(), Progress: []types.LeaseProgress{{LeaseId: 1}}},
		"more proven than settled": {Params: types.DefaultParams(), Progress: []types.LeaseProgress{{LeaseId: 1, EpochSeconds: 600, ProvenEpochs: 2, NextEpoch: 1}}},
		"bad rewards provider":     {Params: types.DefaultParams(), Rewards: []types.ProviderRewards{{Provider: "nobody"}}},
	} { //detlint:allow independent cases
		s.Require().ErrorIs(gs.Validate(), types.ErrInvalidGenesis, name)
	}
}
