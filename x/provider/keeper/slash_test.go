package keeper_test

import (
	"time"

	sdkmath "cosmossdk.io/math"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/provider/types"
)

// slashSetup: provider 0 with 1,000 bonded and unbonding entries of 300 and
// 201 (bonded 1,501 then unbonded 501).
func (s *KeeperTestSuite) slashSetup() {
	s.register(0)
	s.bond(0, 1_501)
	for _, amount := range []int64{300, 201} {
		_, err := s.msgServer.Unbond(s.ctx, &types.MsgUnbond{Operator: s.operator(0), Amount: ugpu(amount)})
		s.Require().NoError(err)
	}
}

func (s *KeeperTestSuite) TestSlashReachesBondedAndUnbondingStake() {
	s.slashSetup()
	reporter := s.accs[3].Address
	supply, reporterBefore := s.supply(), s.balance(reporter)

	slashed, err := s.keeper.Slash(s.ctx, s.accs[0].Address, 5_000, types.SLASH_REASON_FRAUD, reporter)
	s.Require().NoError(err)

	// Penalty: 50% of 1,000 + 50% of 300 + floor(50% of 201) = 500 + 150
	// + 100 = 750, burned; the reporter's 50% of it, 375, is taken on top
	// from the bonded stake.
	s.Require().Equal(ugpu(1_125), slashed)
	p := s.provider(0)
	s.Require().Equal(ugpu(125), p.Stake)
	s.Require().Equal(ugpu(251), p.Unbonding)
	entries, err := s.queryServer.Unbondings(s.ctx, &types.QueryUnbondingsRequest{Provider: s.operator(0)})
	s.Require().NoError(err)
	s.Require().Equal([]sdk.Coin{ugpu(150), ugpu(101)}, []sdk.Coin{entries.Unbondings[0].Amount, entries.Unbondings[1].Amount})

	s.Require().Equal(reporterBefore.AddRaw(375), s.balance(reporter))
	s.Require().Equal(supply.SubRaw(750), s.supply(), "supply drops by exactly the burned amount")
	s.Require().Equal(sdkmath.NewInt(125+251), s.moduleBalance())
	rep, err := s.keeper.Reputations.Get(s.ctx, s.accs[0].Address)
	s.Require().NoError(err)
	s.Require().EqualValues(1, rep.Frauds)
	s.requireEvent(&types.EventSlashed{
		Provider: s.operator(0), Reason: types.SLASH_REASON_FRAUD, FractionBps: 5_000, Slashed: ugpu(1_125),
		Beneficiary: s.operator(3), Reward: ugpu(375), Burned: ugpu(750),
	})

	// The unbonding entries pay out what the slash left.
	s.ctx = s.ctx.WithBlockTime(s.ctx.BlockTime().Add(336 * time.Hour))
	opBefore := s.balance(s.accs[0].Address)
	s.Require().NoError(s.keeper.EndBlocker(s.ctx))
	s.Require().Equal(opBefore.AddRaw(251), s.balance(s.accs[0].Address))
}

func (s *KeeperTestSuite) TestSlashWithoutBeneficiaryBurnsAll() {
	s.slashSetup()
	supply := s.supply()
	slashed, err := s.keeper.Slash(s.ctx, s.accs[0].Address, 100, types.SLASH_REASON_LIVENESS, nil)
	s.Require().NoError(err)
	// 1% of 1,000 + 1% of 300 + floor(1% of 201) = 10 + 3 + 2.
	s.Require().Equal(ugpu(15), slashed)
	s.Require().Equal(supply.SubRaw(15), s.supply())
	rep, err := s.keeper.Reputations.Get(s.ctx, s.accs[0].Address)
	s.Require().NoError(err)
	s.Require().Zero(rep.Frauds, "a liveness slash is not fraud")
}

func (s *KeeperTestSuite) TestFullSlashEmptiesTheQueue() {
	s.slashSetup()
	slashed, err := s.keeper.Slash(s.ctx, s.accs[0].Address, 10_000, types.SLASH_REASON_FRAUD, nil)
	s.Require().NoError(err)
	s.Require().Equal(ugpu(1_501), slashed)
	s.Require().Equal(ugpu(0), s.provider(0).Unbonding)
	s.Require().Equal(types.PROVIDER_STATUS_INACTIVE, s.provider(0).Status)
	entries, err := s.queryServer.Unbondings(s.ctx, &types.QueryUnbondingsRequest{Provider: s.operator(0)})
	s.Require().NoError(err)
	s.Require().Empty(entries.Unbondings, "entries slashed to zero are removed")
	s.Require().True(s.moduleBalance().IsZero())
}

func (s *KeeperTestSuite) TestSlashRejectsBadInput() {
	s.slashSetup()
	before := s.snapshot()
	for _, tc := range []struct {
		name   string
		addr   sdk.AccAddress
		bps    uint32
		reason types.SlashReason
		expErr error
	}{
		{"zero fraction", s.accs[0].Address, 0, types.SLASH_REASON_FRAUD, types.ErrInvalidSlash},
		{"over 100%", s.accs[0].Address, 10_001, types.SLASH_REASON_FRAUD, types.ErrInvalidSlash},
		{"no reason", s.accs[0].Address, 100, types.SLASH_REASON_UNSPECIFIED, types.ErrInvalidSlash},
		{"not a provider", s.accs[1].Address, 100, types.SLASH_REASON_FRAUD, types.ErrProviderNotFound},
	} {
		_, err := s.keeper.Slash(s.ctx, tc.addr, tc.bps, tc.reason, nil)
		s.Require().ErrorIs(err, tc.expErr, tc.name)
		s.Require().Equal(before, s.snapshot(), tc.name)
	}
}

func (s *KeeperTestSuite) TestTombstonedProviderNeverReturns() {
	s.register(0)
	s.bond(0, 200_000_000)
	uuids := s.registerGPUs(0, 0, 2)
	s.Require().NoError(s.keeper.Tombstone(s.ctx, s.accs[0].Address))
	s.requireEvent(&types.EventTombstoned{Provider: s.operator(0)})
	s.Require().Equal(types.PROVIDER_STATUS_TOMBSTONED, s.provider(0).Status)

	_, err := s.msgServer.Bond(s.ctx, &types.MsgBond{Operator: s.operator(0), Amount: ugpu(1)})
	s.Require().ErrorIs(err, types.ErrTombstoned)
	_, err = s.msgServer.RegisterGPUs(s.ctx, &types.MsgRegisterGPUs{Signer: s.operator(0), Provider: s.operator(0), Gpus: gpus(5, 1)})
	s.Require().ErrorIs(err, types.ErrTombstoned)
	s.Require().ErrorIs(s.keeper.CanCommitGPUs(s.ctx, s.accs[0].Address, 1), types.ErrProviderNotActive, "never matched again")
	s.Require().ErrorIs(s.keeper.CommitGPUs(s.ctx, s.accs[0].Address, uuids[:1]), types.ErrProviderNotActive)
	s.Require().ErrorIs(s.keeper.Jail(s.ctx, s.accs[0].Address, s.ctx.BlockTime().Add(time.Hour)), types.ErrTombstoned)
	_, err = s.msgServer.Unjail(s.ctx, &types.MsgUnjail{Operator: s.operator(0)})
	s.Require().ErrorIs(err, types.ErrTombstoned)

	// Its GPUs stay bound: the same hardware cannot return under a new name.
	s.register(1)
	_, err = s.msgServer.RegisterGPUs(s.ctx, &types.MsgRegisterGPUs{Signer: s.operator(1), Provider: s.operator(1), Gpus: gpus(0, 1)})
	s.Require().ErrorIs(err, types.ErrGPUAlreadyRegistered)

	// Tombstoning twice is harmless.
	s.Require().NoError(s.keeper.Tombstone(s.ctx, s.accs[0].Address))
}

func (s *KeeperTestSuite) TestCommitAndReleaseGPUs() {
	s.register(0)
	s.register(1)
	s.bond(0, 250_000_000) // covers two GPUs
	s.bond(1, 100_000_000)
	mine := s.registerGPUs(0, 0, 3)
	theirs := s.registerGPUs(1, 10, 1)
	op := s.accs[0].Address

	s.Require().NoError(s.keeper.CanCommitGPUs(s.ctx, op, 2))
	s.Require().ErrorIs(s.keeper.CanCommitGPUs(s.ctx, op, 3), types.ErrInsufficientStake)

	s.Require().NoError(s.keeper.CommitGPUs(s.ctx, op, mine[:2]))
	s.Require().EqualValues(2, s.provider(0).CommittedGpus)
	for _, tc := range []struct {
		name   string
		uuids  []string
		expErr error
	}{
		{"beyond the stake", mine[2:], types.ErrInsufficientStake},
		{"already committed (in another offer)", mine[:1], types.ErrGPUCommitted},
	} {
		before := s.snapshot()
		s.Require().ErrorIs(s.keeper.CommitGPUs(s.ctx, op, tc.uuids), tc.expErr, tc.name)
		s.Require().Equal(before, s.snapshot(), tc.name)
	}

	s.bond(0, 100_000_000) // now covers three
	for _, tc := range []struct {
		name   string
		uuids  []string
		expErr error
	}{
		{"already committed", mine[:1], types.ErrGPUCommitted},
		{"listed twice", []string{mine[2], mine[2]}, types.ErrDuplicateGPU},
		{"another provider's", theirs, types.ErrGPUNotFound},
		{"unknown", []string{gpu(99).Uuid}, types.ErrGPUNotFound},
	} {
		before := s.snapshot()
		s.Require().ErrorIs(s.keeper.CommitGPUs(s.ctx, op, tc.uuids), tc.expErr, tc.name)
		s.Require().Equal(before, s.snapshot(), tc.name)
	}

	s.Require().NoError(s.keeper.ReleaseGPUs(s.ctx, op, mine[:1]))
	s.Require().EqualValues(1, s.provider(0).CommittedGpus)
	s.Require().ErrorIs(s.keeper.ReleaseGPUs(s.ctx, op, mine[:1]), types.ErrGPUNotCommitted)
	g, err := s.queryServer.GPU(s.ctx, &types.QueryGPURequest{Uuid: mine[1]})
	s.Require().NoError(err)
	s.Require().True(g.Gpu.Committed)
}

func (s *KeeperTestSuite) TestSlashBelowCommittedStakeMakesInactive() {
	s.register(0)
	s.bond(0, 200_000_000)
	uuids := s.registerGPUs(0, 0, 2)
	s.Require().NoError(s.keeper.CommitGPUs(s.ctx, s.accs[0].Address, uuids))
	_, err := s.keeper.Slash(s.ctx, s.accs[0].Address, 100, types.SLASH_REASON_LIVENESS, nil)
	s.Require().NoError(err)
	p := s.provider(0)
	s.Require().Equal(ugpu(198_000_000), p.Stake)
	s.Require().Equal(types.PROVIDER_STATUS_INACTIVE, p.Status, "stake no longer covers its committed GPUs")
	s.requireEvent(&types.EventStatusChanged{Provider: s.operator(0), From: types.PROVIDER_STATUS_ACTIVE, To: types.PROVIDER_STATUS_INACTIVE})
	// Topping the stake back up makes it active again.
	s.bond(0, 2_000_000)
	s.Require().Equal(types.PROVIDER_STATUS_ACTIVE, s.provider(0).Status)
}
