package keeper

import (
	"context"

	errorsmod "cosmossdk.io/errors"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/provider/types"
)

// Bond moves coins from the operator into its stake.
func (m msgServer) Bond(ctx context.Context, msg *types.MsgBond) (*types.MsgBondResponse, error) {
	operator, p, err := m.operatorProvider(ctx, msg.Operator)
	if err != nil {
		return nil, err
	}
	if err := notTombstoned(p); err != nil {
		return nil, err
	}
	params, err := m.Params.Get(ctx)
	if err != nil {
		return nil, err
	}
	if err := validateStakeAmount(msg.Amount, params); err != nil {
		return nil, err
	}
	p, err = m.bond(ctx, operator, p, msg.Amount)
	if err != nil {
		return nil, err
	}
	return &types.MsgBondResponse{Stake: p.Stake}, sdk.UnwrapSDKContext(ctx).EventManager().EmitTypedEvent(&types.EventBonded{
		Provider: msg.Operator, Amount: msg.Amount, Stake: p.Stake,
	})
}

// Unbond moves stake into the unbonding queue. What stays bonded must still
// cover the committed GPUs. A tombstoned provider may unbond what a slash
// left it.
func (m msgServer) Unbond(ctx context.Context, msg *types.MsgUnbond) (*types.MsgUnbondResponse, error) {
	operator, p, err := m.operatorProvider(ctx, msg.Operator)
	if err != nil {
		return nil, err
	}
	params, err := m.Params.Get(ctx)
	if err != nil {
		return nil, err
	}
	if err := validateStakeAmount(msg.Amount, params); err != nil {
		return nil, err
	}
	if p.Stake.Amount.LT(msg.Amount.Amount) {
		return nil, errorsmod.Wrapf(types.ErrInsufficientStake, "unbonding %s of a %s stake", msg.Amount, p.Stake)
	}
	left := p.Stake.Amount.Sub(msg.Amount.Amount)
	if need := params.RequiredStake(p.CommittedGpus); left.LT(need) {
		return nil, errorsmod.Wrapf(types.ErrInsufficientStake, "%d committed GPUs need %s%s bonded; unbonding %s would leave %s",
			p.CommittedGpus, need, params.StakeDenom(), msg.Amount, left)
	}
	n, err := m.unbondingCount(ctx, operator, params.MaxUnbondingEntries)
	if err != nil {
		return nil, err
	}
	if n >= params.MaxUnbondingEntries {
		return nil, errorsmod.Wrapf(types.ErrTooManyUnbondings, "%s already has %d unbonding entries", msg.Operator, n)
	}

	entry, err := m.unbond(ctx, operator, p, msg.Amount, params)
	if err != nil {
		return nil, err
	}
	return &types.MsgUnbondResponse{Id: entry.Id, CompletesAt: entry.CompletesAt}, sdk.UnwrapSDKContext(ctx).EventManager().EmitTypedEvent(&types.EventUnbondingStarted{
		Provider: msg.Operator, Id: entry.Id, Amount: entry.Amount, CompletesAt: entry.CompletesAt,
	})
}
