package keeper

import (
	"context"
	"errors"
	"slices"

	"cosmossdk.io/collections"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/provider/types"
)

// A GPU's record follows the GPU: when it leaves a provider, the chain
// remembers that provider's reliability, and whoever registers the GPU next
// is lowered to it. Otherwise an unreliable provider would move its GPUs to
// a fresh operator and start again at initial_reliability_bps.

// rememberGPU records, as the GPU leaves provider, the provider's
// reliability now.
func (k Keeper) rememberGPU(ctx context.Context, provider sdk.AccAddress, g types.GPU) error {
	rep, err := k.Reputations.Get(ctx, provider)
	if err != nil {
		return err
	}
	return k.GPUHistories.Set(ctx, g.Uuid, types.GPUHistory{
		Uuid: g.Uuid, Provider: g.Provider, ReliabilityBps: rep.ReliabilityBps,
	})
}

// inheritGPUHistories lowers the provider's reliability to the lowest
// record among the GPUs it registers (records left by another provider;
// its own GPU coming back carries nothing its own reliability does not
// already hold), then spends the records: the GPUs are bound again and
// will leave a new record when they leave. The work is one read per GPU of
// the message (≤ max_gpus_per_msg).
func (k Keeper) inheritGPUHistories(ctx context.Context, provider sdk.AccAddress, p types.Provider, uuids []string) error {
	var inherited []uint32
	for _, uuid := range uuids {
		h, err := k.GPUHistories.Get(ctx, uuid)
		if errors.Is(err, collections.ErrNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		if h.Provider != p.Operator {
			inherited = append(inherited, h.ReliabilityBps)
		}
		if err := k.GPUHistories.Remove(ctx, uuid); err != nil {
			return err
		}
	}
	if len(inherited) == 0 {
		return nil
	}
	rep, err := k.Reputations.Get(ctx, provider)
	if err != nil {
		return err
	}
	lowest := min(rep.ReliabilityBps, slices.Min(inherited))
	if lowest == rep.ReliabilityBps {
		return nil
	}
	rep.ReliabilityBps = lowest
	return k.setReputation(ctx, provider, rep)
}
