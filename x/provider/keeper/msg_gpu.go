package keeper

import (
	"context"

	errorsmod "cosmossdk.io/errors"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/provider/types"
)

// RegisterGPUs binds 1..max_gpus_per_msg GPUs to the provider; the signer is
// its operator or an agent. Each GPU's model must be in the GPU model table
// and its memory within MemoryToleranceBps of the entry. Fingerprints are
// computed here, never taken from the sender.
func (m msgServer) RegisterGPUs(ctx context.Context, msg *types.MsgRegisterGPUs) (*types.MsgRegisterGPUsResponse, error) {
	provider, p, err := m.actingFor(ctx, msg.Signer, msg.Provider)
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
	n := uint32(len(msg.Gpus))
	if n == 0 || n > params.MaxGpusPerMsg {
		return nil, errorsmod.Wrapf(types.ErrTooManyGPUs, "a message carries 1..%d GPUs, got %d", params.MaxGpusPerMsg, n)
	}
	if p.GpuCount+n > params.MaxGpusPerProvider {
		return nil, errorsmod.Wrapf(types.ErrTooManyGPUs, "%s has %d GPUs; %d more exceed max_gpus_per_provider %d",
			msg.Provider, p.GpuCount, n, params.MaxGpusPerProvider)
	}
	seen := make(map[string]bool, n)
	for _, g := range msg.Gpus {
		if err := g.Validate(); err != nil {
			return nil, err
		}
		if g.Simulated && !params.AllowSimulatedGpus {
			return nil, errorsmod.Wrapf(types.ErrSimulatedGPU, "%s is simulated; this chain is not a development chain", g.Uuid)
		}
		if err := m.checkGPUModel(ctx, g); err != nil {
			return nil, err
		}
		if seen[g.Uuid] {
			return nil, errorsmod.Wrapf(types.ErrDuplicateGPU, "%s listed twice", g.Uuid)
		}
		seen[g.Uuid] = true
		if existing, err := m.GPUsByUUID.Get(ctx, g.Uuid); err == nil {
			return nil, errorsmod.Wrapf(types.ErrGPUAlreadyRegistered, "%s belongs to %s", g.Uuid, existing.Provider)
		}
	}

	fingerprints, err := m.registerGPUs(ctx, provider, p, msg.Gpus)
	if err != nil {
		return nil, err
	}
	uuids := make([]string, len(msg.Gpus))
	for i, g := range msg.Gpus {
		uuids[i] = g.Uuid
	}
	return &types.MsgRegisterGPUsResponse{Fingerprints: fingerprints}, sdk.UnwrapSDKContext(ctx).EventManager().EmitTypedEvent(&types.EventGPUsRegistered{
		Provider: msg.Provider, Signer: msg.Signer, Uuids: uuids,
	})
}

// DeregisterGPU unbinds a GPU of the provider that is in no offer or lease.
// A jailed provider's GPUs stay bound until it unjails, so they cannot
// leave under the jail.
func (m msgServer) DeregisterGPU(ctx context.Context, msg *types.MsgDeregisterGPU) (*types.MsgDeregisterGPUResponse, error) {
	provider, p, err := m.actingFor(ctx, msg.Signer, msg.Provider)
	if err != nil {
		return nil, err
	}
	if err := notTombstoned(p); err != nil {
		return nil, err
	}
	if p.Status == types.PROVIDER_STATUS_JAILED {
		return nil, errorsmod.Wrapf(types.ErrStillJailed, "%s is jailed until %s: its GPUs stay bound until it unjails",
			msg.Provider, p.JailedUntil.UTC().Format("2006-01-02T15:04:05Z"))
	}
	if err := types.ValidateGPUUUID(msg.Uuid); err != nil {
		return nil, err
	}
	g, err := m.gpu(ctx, msg.Uuid)
	if err != nil {
		return nil, err
	}
	if g.Provider != msg.Provider {
		return nil, errorsmod.Wrapf(types.ErrGPUNotFound, "%s is not a GPU of %s", msg.Uuid, msg.Provider)
	}
	if err := m.deregisterGPU(ctx, provider, p, g); err != nil {
		return nil, err
	}
	return &types.MsgDeregisterGPUResponse{}, sdk.UnwrapSDKContext(ctx).EventManager().EmitTypedEvent(&types.EventGPUDeregistered{
		Provider: msg.Provider, Uuid: msg.Uuid,
	})
}
