package keeper_test

import (
	"cosmossdk.io/collections"

	"github.com/idlegpu/idlegpu/x/provider/types"
)

// Each invariant catches the corruption it guards against.
func (s *KeeperTestSuite) TestInvariantsCatchCorruption() {
	setup := func() {
		s.SetupTest()
		s.register(0)
		s.bond(0, 100_000_000)
		s.registerGPUs(0, 0, 2)
		s.Require().NoError(s.keeper.CheckInvariants(s.ctx))
	}
	for _, tc := range []struct {
		name    string
		corrupt func()
		check   func() error
		want    string
	}{
		{"stake without coins", func() {
			p := s.provider(0)
			p.Stake = p.Stake.AddAmount(p.Stake.Amount)
			s.Require().NoError(s.keeper.Providers.Set(s.ctx, s.accs[0].Address, p))
		}, func() error { return s.keeper.StakeBackedInvariant(s.ctx) }, "module account holds 100000000ugpu, providers' bonded + unbonding stake is 200000000ugpu"},
		{"unbonding without entries", func() {
			p := s.provider(0)
			p.Unbonding = ugpu(5)
			s.Require().NoError(s.keeper.Providers.Set(s.ctx, s.accs[0].Address, p))
		}, func() error { return s.keeper.StakeBackedInvariant(s.ctx) }, "unbonding 5 but entries sum to 0"},
		{"a GPU whose owner is gone", func() {
			s.Require().NoError(s.keeper.Providers.Remove(s.ctx, s.accs[0].Address))
		}, func() error { return s.keeper.GPUOwnersInvariant(s.ctx) }, "does not exist"},
		{"a GPU missing from its owner's list", func() {
			s.Require().NoError(s.keeper.ProviderGPUs.Remove(s.ctx, collections.Join(s.accs[0].Address, gpu(1).Uuid)))
		}, func() error { return s.keeper.GPUOwnersInvariant(s.ctx) }, "not listed under its owner"},
		{"a wrong gpu count", func() {
			p := s.provider(0)
			p.GpuCount = 3
			s.Require().NoError(s.keeper.Providers.Set(s.ctx, s.accs[0].Address, p))
		}, func() error { return s.keeper.GPUOwnersInvariant(s.ctx) }, "gpu_count 3 / committed 0, but has 2 / 0"},
		{"reliability above 100%", func() {
			s.Require().NoError(s.keeper.Reputations.Set(s.ctx, s.accs[0].Address, types.Reputation{ReliabilityBps: 10_001}))
		}, func() error { return s.keeper.ReliabilityBoundsInvariant(s.ctx) }, "reliability_bps must be at most 10000 bps, got 10001"},
		{"a carry of a whole bps", func() {
			s.Require().NoError(s.keeper.Reputations.Set(s.ctx, s.accs[0].Address, types.Reputation{ReliabilityBps: 9000, ReliabilityCarry: 10_000}))
		}, func() error { return s.keeper.ReliabilityBoundsInvariant(s.ctx) }, "reliability_carry 10000: want below 10000"},
		{"a carry above 100%", func() {
			s.Require().NoError(s.keeper.Reputations.Set(s.ctx, s.accs[0].Address, types.Reputation{ReliabilityBps: 10_000, ReliabilityCarry: 1}))
		}, func() error { return s.keeper.ReliabilityBoundsInvariant(s.ctx) }, "reliability_carry 1: want below 10000, keeping 10000 bps + carry at most 10000"},
	} {
		s.Run(tc.name, func() {
			setup()
			tc.corrupt()
			s.Require().ErrorContains(tc.check(), tc.want)
			s.Require().Error(s.keeper.CheckInvariants(s.ctx))
			s.SetupTest() // leave a sound state for TearDownTest
		})
	}
}
