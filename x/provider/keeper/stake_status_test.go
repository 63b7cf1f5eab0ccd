package keeper_test

import "github.com/idlegpu/idlegpu/x/provider/types"

func (s *KeeperTestSuite) updateMinStake(amount int64) {
	s.T().Helper()
	params, err := s.keeper.Params.Get(s.ctx)
	s.Require().NoError(err)
	params.MinStakePerGpu = ugpu(amount)
	_, err = s.msgServer.UpdateParams(s.ctx, &types.MsgUpdateParams{Authority: s.authority, Params: params})
	s.Require().NoError(err)
}

// Raising min_stake_per_gpu makes a provider whose stake no longer covers
// its committed GPUs INACTIVE at once, wherever its status is read, with
// no write to the provider; its committed GPUs (live work) stay committed.
func (s *KeeperTestSuite) TestRaisedMinStakeMakesUnderStakedProvidersInactive() {
	s.register(0)
	s.register(1)
	s.bond(0, 200_000_000)
	s.bond(1, 300_000_000)
	mine := s.registerGPUs(0, 0, 3)
	theirs := s.registerGPUs(1, 10, 2)
	s.Require().NoError(s.keeper.CommitGPUs(s.ctx, s.accs[0].Address, mine[:2]))
	s.Require().NoError(s.keeper.CommitGPUs(s.ctx, s.accs[1].Address, theirs))

	s.updateMinStake(150_000_000) // two committed GPUs now need 300

	p := s.provider(0)
	s.Require().Equal(types.PROVIDER_STATUS_INACTIVE, p.Status, "200 no longer covers two GPUs at 150")
	s.Require().EqualValues(2, p.CommittedGpus, "its live work is untouched")
	s.Require().Equal(types.PROVIDER_STATUS_ACTIVE, s.provider(1).Status, "300 still covers two GPUs at 150")
	s.Require().ErrorIs(s.keeper.CanCommitGPUs(s.ctx, s.accs[0].Address, 0), types.ErrProviderNotActive)
	s.Require().ErrorIs(s.keeper.CommitGPUs(s.ctx, s.accs[0].Address, mine[2:]), types.ErrProviderNotActive)

	res, err := s.queryServer.Provider(s.ctx, &types.QueryProviderRequest{Operator: s.operator(0)})
	s.Require().NoError(err)
	s.Require().Equal(types.PROVIDER_STATUS_INACTIVE, res.Provider.Status)
	all, err := s.queryServer.Providers(s.ctx, &types.QueryProvidersRequest{})
	s.Require().NoError(err)
	statuses := map[string]types.ProviderStatus{}
	for _, p := range all.Providers {
		statuses[p.Operator] = p.Status
	}
	s.Require().Equal(map[string]types.ProviderStatus{
		s.operator(0): types.PROVIDER_STATUS_INACTIVE, s.operator(1): types.PROVIDER_STATUS_ACTIVE,
	}, statuses)

	// Leases end normally: its GPUs are released whatever its status.
	s.Require().NoError(s.keeper.ReleaseGPUs(s.ctx, s.accs[0].Address, mine[:1]))
	s.Require().Equal(types.PROVIDER_STATUS_ACTIVE, s.provider(0).Status, "200 covers the one GPU still committed")

	// Topping up brings it back.
	s.Require().ErrorIs(s.keeper.CommitGPUs(s.ctx, s.accs[0].Address, mine[:1]), types.ErrInsufficientStake)
	s.bond(0, 100_000_000)
	s.Require().NoError(s.keeper.CommitGPUs(s.ctx, s.accs[0].Address, mine[:1]))
	s.Require().Equal(types.PROVIDER_STATUS_ACTIVE, s.provider(0).Status, "300 covers two GPUs at 150")
}

// Lowering min_stake_per_gpu lets a provider whose stake now covers its
// GPUs work at once, without a write of its own.
func (s *KeeperTestSuite) TestLoweredMinStakeMakesCoveredProvidersActive() {
	s.register(0)
	s.bond(0, 60_000_000)
	s.Require().Equal(types.PROVIDER_STATUS_INACTIVE, s.provider(0).Status)
	s.updateMinStake(50_000_000)
	s.Require().Equal(types.PROVIDER_STATUS_ACTIVE, s.provider(0).Status)
	s.Require().NoError(s.keeper.CanCommitGPUs(s.ctx, s.accs[0].Address, 1))
}
