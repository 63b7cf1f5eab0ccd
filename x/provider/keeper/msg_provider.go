package keeper

import (
	"context"

	errorsmod "cosmossdk.io/errors"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/provider/types"
)

// RegisterProvider registers the operator with no stake (INACTIVE until it
// bonds one GPU's worth) and the initial reliability.
func (m msgServer) RegisterProvider(ctx context.Context, msg *types.MsgRegisterProvider) (*types.MsgRegisterProviderResponse, error) {
	operator, err := m.operator(msg.Operator)
	if err != nil {
		return nil, err
	}
	if has, err := m.Providers.Has(ctx, operator); err != nil {
		return nil, err
	} else if has {
		return nil, errorsmod.Wrapf(types.ErrProviderExists, "%s", msg.Operator)
	}
	params, err := m.Params.Get(ctx)
	if err != nil {
		return nil, err
	}
	if err := m.validateProviderFields(msg.Operator, msg.Moniker, msg.Region, msg.Endpoint, msg.TlsCertSha256, msg.Agents, params); err != nil {
		return nil, err
	}

	zero := sdk.NewInt64Coin(params.StakeDenom(), 0)
	p := types.Provider{
		Operator:      msg.Operator,
		Moniker:       msg.Moniker,
		Region:        msg.Region,
		Endpoint:      msg.Endpoint,
		TlsCertSha256: msg.TlsCertSha256,
		Agents:        msg.Agents,
		Stake:         zero,
		Unbonding:     zero,
		Status:        types.PROVIDER_STATUS_INACTIVE,
		CreatedAt:     sdk.UnwrapSDKContext(ctx).BlockTime(),
	}
	if err := m.setProvider(ctx, operator, p); err != nil {
		return nil, err
	}
	if err := m.setReputation(ctx, operator, types.Reputation{ReliabilityBps: params.InitialReliabilityBps}); err != nil {
		return nil, err
	}
	return &types.MsgRegisterProviderResponse{}, sdk.UnwrapSDKContext(ctx).EventManager().EmitTypedEvent(&types.EventProviderRegistered{
		Provider: msg.Operator, Moniker: msg.Moniker, Region: msg.Region,
	})
}

// UpdateProvider replaces the description and agents; only the operator may.
func (m msgServer) UpdateProvider(ctx context.Context, msg *types.MsgUpdateProvider) (*types.MsgUpdateProviderResponse, error) {
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
	if err := m.validateProviderFields(msg.Operator, msg.Moniker, msg.Region, msg.Endpoint, msg.TlsCertSha256, msg.Agents, params); err != nil {
		return nil, err
	}
	p.Moniker, p.Region, p.Endpoint, p.TlsCertSha256, p.Agents = msg.Moniker, msg.Region, msg.Endpoint, msg.TlsCertSha256, msg.Agents
	if err := m.setProvider(ctx, operator, p); err != nil {
		return nil, err
	}
	return &types.MsgUpdateProviderResponse{}, sdk.UnwrapSDKContext(ctx).EventManager().EmitTypedEvent(&types.EventProviderUpdated{
		Provider: msg.Operator, Agents: msg.Agents,
	})
}

// Unjail returns a jailed provider to work once jailed_until has passed.
func (m msgServer) Unjail(ctx context.Context, msg *types.MsgUnjail) (*types.MsgUnjailResponse, error) {
	operator, p, err := m.operatorProvider(ctx, msg.Operator)
	if err != nil {
		return nil, err
	}
	if err := notTombstoned(p); err != nil {
		return nil, err
	}
	if p.Status != types.PROVIDER_STATUS_JAILED {
		return nil, errorsmod.Wrapf(types.ErrNotJailed, "%s is %s", msg.Operator, p.Status)
	}
	now := sdk.UnwrapSDKContext(ctx).BlockTime()
	if now.Before(p.JailedUntil) {
		return nil, errorsmod.Wrapf(types.ErrStillJailed, "%s is jailed until %s", msg.Operator, p.JailedUntil.UTC().Format("2006-01-02T15:04:05Z"))
	}
	p.Status = types.PROVIDER_STATUS_INACTIVE // setProvider derives ACTIVE/INACTIVE from the stake
	if err := m.setProvider(ctx, operator, p); err != nil {
		return nil, err
	}
	p, err = m.provider(ctx, operator)
	if err != nil {
		return nil, err
	}
	return &types.MsgUnjailResponse{Status: p.Status}, sdk.UnwrapSDKContext(ctx).EventManager().EmitTypedEvent(&types.EventUnjailed{
		Provider: msg.Operator, Status: p.Status,
	})
}

func (m msgServer) validateProviderFields(operator, moniker, region, endpoint, certHash string, agents []string, params types.Params) error {
	if err := types.ValidateDescription(moniker, region, endpoint, certHash); err != nil {
		return err
	}
	return types.ValidateAgents(operator, agents, params.MaxAgents, m.addressCodec.StringToBytes)
}
