package keeper_test

import (
	"cosmossdk.io/collections"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/base/chaincfg"
	"github.com/idlegpu/idlegpu/x/settlement/types"
)

// TestClaimNothingSaysWhatIsHeld: a claim that pays nothing names the denoms
// it asked for and the rewards the provider does hold, so "--denoms foo"
// reads as the wrong denom rather than as no rewards at all.
func (s *KeeperTestSuite) TestClaimNothingSaysWhatIsHeld() {
	op := s.operator(0)
	claim := func(denoms ...string) error {
		_, err := s.msgServer.ClaimRewards(s.ctx, &types.MsgClaimRewards{Operator: op, Denoms: denoms})
		s.Require().ErrorIs(err, types.ErrNoRewards)
		return err
	}
	s.Require().EqualError(claim(), op+" has no rewards to claim (no rewards held): no rewards to claim")
	s.Require().EqualError(claim("foo"), op+" has no rewards in foo to claim (no rewards held): no rewards to claim")

	// 12uusdc of rewards, held by the module as the invariants want.
	held := sdk.NewInt64Coin(chaincfg.USDCDenom, 12)
	s.Require().NoError(s.app.BankKeeper.SendCoinsFromAccountToModule(s.ctx, s.accs[1].Address, types.ModuleName, sdk.NewCoins(held)))
	s.Require().NoError(s.keeper.Rewards.Set(s.ctx, collections.Join(s.accs[0].Address, held.Denom), held.Amount))
	s.Require().EqualError(claim("foo"), op+" has no rewards in foo to claim (rewards held: 12uusdc): no rewards to claim")
	s.Require().EqualError(claim("foo", chaincfg.BondDenom), op+" has no rewards in foo, ugpu to claim (rewards held: 12uusdc): no rewards to claim")

	res, err := s.msgServer.ClaimRewards(s.ctx, &types.MsgClaimRewards{Operator: op, Denoms: []string{"foo", chaincfg.USDCDenom}})
	s.Require().NoError(err, "a denom held among those asked for pays")
	s.Require().Equal(sdk.NewCoins(held), res.Claimed)
}
