package keeper

import (
	"context"
	"slices"
	"strings"

	"cosmossdk.io/collections"
	errorsmod "cosmossdk.io/errors"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/settlement/types"
)

// ClaimRewards pays the operator its provider's rewards (every denom, or
// the ones named) out of the module account.
func (m msgServer) ClaimRewards(ctx context.Context, msg *types.MsgClaimRewards) (*types.MsgClaimRewardsResponse, error) {
	op, err := m.addressCodec.StringToBytes(msg.Operator)
	if err != nil {
		return nil, errorsmod.Wrapf(types.ErrUnauthorized, "operator: %v", err)
	}
	if err := types.ValidateRewardDenoms(msg.Denoms); err != nil {
		return nil, err
	}
	all, err := m.ProviderRewards(ctx, op)
	if err != nil {
		return nil, err
	}
	var claim sdk.Coins
	for _, c := range all {
		if len(msg.Denoms) == 0 || slices.Contains(msg.Denoms, c.Denom) {
			claim = append(claim, c)
		}
	}
	if claim.IsZero() {
		// Name what was asked for and what is held: "--denoms foo" against
		// rewards in uusdc is a wrong denom, not an empty purse.
		held := "no rewards held"
		if !all.IsZero() {
			held = "rewards held: " + all.String()
		}
		if len(msg.Denoms) == 0 {
			return nil, errorsmod.Wrapf(types.ErrNoRewards, "%s has no rewards to claim (%s)", msg.Operator, held)
		}
		return nil, errorsmod.Wrapf(types.ErrNoRewards, "%s has no rewards in %s to claim (%s)",
			msg.Operator, strings.Join(msg.Denoms, ", "), held)
	}
	for _, c := range claim {
		if err := m.Rewards.Remove(ctx, collections.Join(sdk.AccAddress(op), c.Denom)); err != nil {
			return nil, err
		}
	}
	if err := m.bank.SendCoinsFromModuleToAccount(ctx, types.ModuleName, op, claim); err != nil {
		return nil, err
	}
	return &types.MsgClaimRewardsResponse{Claimed: claim}, sdk.UnwrapSDKContext(ctx).EventManager().EmitTypedEvent(
		&types.EventRewardsClaimed{Operator: msg.Operator, Claimed: claim})
}
