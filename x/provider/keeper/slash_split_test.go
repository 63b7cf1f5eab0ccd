package keeper_test

import (
	sdkmath "cosmossdk.io/math"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/provider/types"
)

// held is what provider i has at stake: bonded plus unbonding.
func (s *KeeperTestSuite) held(i int) sdkmath.Int {
	p := s.provider(i)
	return p.Stake.Amount.Add(p.Unbonding.Amount)
}

// A provider reporting its own fraud (from its operator or a second
// address) loses exactly what an unreported fraud costs: the penalty of
// slash_fraud_bps of all it has at stake is burned whoever reports, and
// the reporter's reward is taken on top of it.
func (s *KeeperTestSuite) TestFraudSelfReportingDoesNotPay() {
	for _, tc := range []struct {
		name     string
		reporter func() sdk.AccAddress
	}{
		{"reported by its operator", func() sdk.AccAddress { return s.accs[0].Address }},
		{"reported by its second address", func() sdk.AccAddress { return s.accs[3].Address }},
	} {
		s.Run(tc.name, func() {
			s.SetupTest()
			s.slashSetup() // 1,000 bonded, unbonding 300 and 201
			reporter := tc.reporter()
			own := func() sdkmath.Int { // everything the cheater owns: both addresses and its stake
				return s.balance(s.accs[0].Address).Add(s.balance(s.accs[3].Address)).Add(s.held(0))
			}
			ownBefore, supply, reporterBefore := own(), s.supply(), s.balance(reporter)
			s.Require().Equal(sdkmath.NewInt(1_501), s.held(0))

			taken, err := s.keeper.PunishFraud(s.ctx, s.accs[0].Address, reporter)
			s.Require().NoError(err)

			// Penalty: 50% of 1,000 + 50% of 300 + floor(50% of 201) =
			// 500 + 150 + 100 = 750, burned. Reward: 50% of the penalty,
			// 375, taken on top from the bonded stake (500 → 125).
			s.Require().Equal(ugpu(1_125), taken)
			p := s.provider(0)
			s.Require().Equal(ugpu(125), p.Stake)
			s.Require().Equal(ugpu(251), p.Unbonding)
			s.Require().Equal(types.PROVIDER_STATUS_TOMBSTONED, p.Status)
			s.Require().Equal(reporterBefore.AddRaw(375), s.balance(reporter))
			s.Require().Equal(supply.SubRaw(750), s.supply(), "the whole penalty is burned")
			s.Require().Equal(ownBefore.SubRaw(750), own(), "self-reporting gets back only the reward taken on top")
			s.requireEvent(&types.EventSlashed{
				Provider: s.operator(0), Reason: types.SLASH_REASON_FRAUD, FractionBps: 5_000, Slashed: ugpu(1_125),
				Beneficiary: s.addr(reporter), Reward: ugpu(375), Burned: ugpu(750),
			})
		})
	}
}

// The reward is taken from what the penalty left, bonded stake first, then
// unbonding entries oldest first, and never more than is left.
func (s *KeeperTestSuite) TestSlashRewardComesFromWhatIsLeft() {
	s.register(0)
	s.bond(0, 1_100)
	for _, amount := range []int64{600, 400} {
		_, err := s.msgServer.Unbond(s.ctx, &types.MsgUnbond{Operator: s.operator(0), Amount: ugpu(amount)})
		s.Require().NoError(err)
	}
	reporter := s.accs[3].Address
	reporterBefore, supply := s.balance(reporter), s.supply()

	// Penalty 50 + 300 + 200 = 550 burned; reward 275: the 50 bonded left,
	// then 225 of the first entry's 300 left (75 stay), the second untouched.
	taken, err := s.keeper.Slash(s.ctx, s.accs[0].Address, 5_000, types.SLASH_REASON_FRAUD, reporter)
	s.Require().NoError(err)
	s.Require().Equal(ugpu(825), taken)
	s.Require().Equal(ugpu(0), s.provider(0).Stake)
	entries, err := s.queryServer.Unbondings(s.ctx, &types.QueryUnbondingsRequest{Provider: s.operator(0)})
	s.Require().NoError(err)
	s.Require().Equal([]sdk.Coin{ugpu(75), ugpu(200)}, []sdk.Coin{entries.Unbondings[0].Amount, entries.Unbondings[1].Amount})
	s.Require().Equal(reporterBefore.AddRaw(275), s.balance(reporter))
	s.Require().Equal(supply.SubRaw(550), s.supply())

	// A full penalty leaves nothing to reward: all is burned.
	s.SetupTest()
	s.slashSetup()
	reporterBefore, supply = s.balance(reporter), s.supply()
	taken, err = s.keeper.Slash(s.ctx, s.accs[0].Address, 10_000, types.SLASH_REASON_FRAUD, reporter)
	s.Require().NoError(err)
	s.Require().Equal(ugpu(1_501), taken)
	s.Require().Equal(reporterBefore, s.balance(reporter))
	s.Require().Equal(supply.SubRaw(1_501), s.supply())
}
