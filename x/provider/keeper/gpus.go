package keeper

import (
	"context"
	"errors"

	"cosmossdk.io/collections"
	errorsmod "cosmossdk.io/errors"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/provider/types"
)

// GPUs returns a provider's GPUs in UUID order. The list is bounded by
// max_gpus_per_provider.
func (k Keeper) GPUs(ctx context.Context, provider sdk.AccAddress) ([]types.GPU, error) {
	return collectOwned(ctx, k.ProviderGPUs, provider, k.GPUsByUUID)
}

// CanCommitGPUs returns nil when the provider is ACTIVE and its stake
// covers min_stake_per_gpu × (its committed GPUs + n); otherwise
// ErrProviderNotActive or ErrInsufficientStake saying by how much.
func (k Keeper) CanCommitGPUs(ctx context.Context, provider sdk.AccAddress, n uint32) error {
	p, err := k.provider(ctx, provider)
	if err != nil {
		return err
	}
	params, err := k.Params.Get(ctx)
	if err != nil {
		return err
	}
	return canCommit(p, params, n)
}

// canCommit is CanCommitGPUs on a provider as stored: its status is taken
// under the current params, so a raise of min_stake_per_gpu stops it at once.
func canCommit(p types.Provider, params types.Params, n uint32) error {
	if status := stakeStatus(p, params); status != types.PROVIDER_STATUS_ACTIVE {
		return errorsmod.Wrapf(types.ErrProviderNotActive, "%s is %s", p.Operator, status)
	}
	need := params.RequiredStake(p.CommittedGpus + n)
	if p.Stake.Amount.LT(need) {
		return errorsmod.Wrapf(types.ErrInsufficientStake, "%d committed GPUs need %s%s, stake is %s",
			p.CommittedGpus+n, need, params.StakeDenom(), p.Stake)
	}
	return nil
}

// CommitGPUs marks the provider's GPUs as in an offer or lease. Every UUID
// must be the provider's, listed once and not committed already
// (ErrGPUCommitted: it is in another offer), and CanCommitGPUs must hold for
// their number.
// x/offer calls it when GPUs enter an offer.
func (k Keeper) CommitGPUs(ctx context.Context, provider sdk.AccAddress, uuids []string) error {
	p, err := k.provider(ctx, provider)
	if err != nil {
		return err
	}
	params, err := k.Params.Get(ctx)
	if err != nil {
		return err
	}
	gpus, err := k.ownedGPUs(ctx, p, uuids)
	if err != nil {
		return err
	}
	for _, g := range gpus {
		if g.Committed {
			return errorsmod.Wrapf(types.ErrGPUCommitted, "%s", g.Uuid)
		}
	}
	if err := canCommit(p, params, uint32(len(gpus))); err != nil {
		return err
	}
	for _, g := range gpus {
		g.Committed = true
		if err := k.GPUsByUUID.Set(ctx, g.Uuid, g); err != nil {
			return err
		}
	}
	p.CommittedGpus += uint32(len(gpus))
	return k.setProvider(ctx, provider, p)
}

// ReleaseGPUs clears the committed mark of the provider's GPUs (they left
// their offer and have no lease). Releasing is allowed in any status, so a
// jailed or tombstoned provider's GPUs can be freed as their leases end.
func (k Keeper) ReleaseGPUs(ctx context.Context, provider sdk.AccAddress, uuids []string) error {
	p, err := k.provider(ctx, provider)
	if err != nil {
		return err
	}
	gpus, err := k.ownedGPUs(ctx, p, uuids)
	if err != nil {
		return err
	}
	for _, g := range gpus {
		if !g.Committed {
			return errorsmod.Wrapf(types.ErrGPUNotCommitted, "%s", g.Uuid)
		}
	}
	for _, g := range gpus {
		g.Committed = false
		if err := k.GPUsByUUID.Set(ctx, g.Uuid, g); err != nil {
			return err
		}
	}
	p.CommittedGpus -= uint32(len(gpus))
	return k.setProvider(ctx, provider, p)
}

// ownedGPUs loads uuids, each of which must be p's and listed once.
func (k Keeper) ownedGPUs(ctx context.Context, p types.Provider, uuids []string) ([]types.GPU, error) {
	seen := make(map[string]bool, len(uuids))
	gpus := make([]types.GPU, 0, len(uuids))
	for _, uuid := range uuids {
		if seen[uuid] {
			return nil, errorsmod.Wrapf(types.ErrDuplicateGPU, "%s", uuid)
		}
		seen[uuid] = true
		g, err := k.gpu(ctx, uuid)
		if err != nil {
			return nil, err
		}
		if g.Provider != p.Operator {
			return nil, errorsmod.Wrapf(types.ErrGPUNotFound, "%s is not a GPU of %s", uuid, p.Operator)
		}
		gpus = append(gpus, g)
	}
	return gpus, nil
}

// GPU returns a registered GPU by UUID, or ErrGPUNotFound.
func (k Keeper) GPU(ctx context.Context, uuid string) (types.GPU, error) {
	return k.gpu(ctx, uuid)
}

// GPUAtOrAfter returns the registered GPU with the least UUID at or after
// from, wrapping around to the first GPU; false when none is registered.
// x/settlement picks random GPUs to audit with it: UUIDs are random, so a
// random starting key picks a GPU about uniformly, in O(log n).
func (k Keeper) GPUAtOrAfter(ctx context.Context, from string) (types.GPU, bool, error) {
	g, found, err := firstGPU(ctx, k.GPUsByUUID, new(collections.Range[string]).StartInclusive(from))
	if err != nil || found {
		return g, found, err
	}
	return firstGPU(ctx, k.GPUsByUUID, nil)
}

// firstGPU is the first GPU in rng (nil: all).
func firstGPU(ctx context.Context, m collections.Map[string, types.GPU], rng collections.Ranger[string]) (types.GPU, bool, error) {
	it, err := m.Iterate(ctx, rng)
	if err != nil {
		return types.GPU{}, false, err
	}
	defer it.Close()
	if !it.Valid() {
		return types.GPU{}, false, nil
	}
	g, err := it.Value()
	return g, err == nil, err
}

// SimulatedGPUsAllowed says whether this is a development chain, where
// agents may register simulated GPUs.
func (k Keeper) SimulatedGPUsAllowed(ctx context.Context) (bool, error) {
	p, err := k.Params.Get(ctx)
	return p.AllowSimulatedGpus, err
}

func (k Keeper) gpu(ctx context.Context, uuid string) (types.GPU, error) {
	g, err := k.GPUsByUUID.Get(ctx, uuid)
	if errors.Is(err, collections.ErrNotFound) {
		return g, errorsmod.Wrapf(types.ErrGPUNotFound, "%s", uuid)
	}
	return g, err
}

// registerGPUs binds validated inventories to the provider (the msg server
// has checked the signer, the count and the UUIDs); the provider takes the
// lowest reliability the GPUs' records carry.
func (k Keeper) registerGPUs(ctx context.Context, provider sdk.AccAddress, p types.Provider, infos []types.GPUInfo) ([]string, error) {
	now := sdk.UnwrapSDKContext(ctx).BlockTime()
	fingerprints := make([]string, len(infos))
	uuids := make([]string, len(infos))
	for i, info := range infos {
		g := types.GPU{
			Uuid:          info.Uuid,
			Provider:      p.Operator,
			Model:         info.Model,
			MemoryMib:     info.MemoryMib,
			PciBusId:      info.PciBusId,
			DriverVersion: info.DriverVersion,
			VbiosVersion:  info.VbiosVersion,
			Fingerprint:   info.Fingerprint(),
			RegisteredAt:  now,
			Simulated:     info.Simulated,
		}
		if err := k.GPUsByUUID.Set(ctx, g.Uuid, g); err != nil {
			return nil, err
		}
		if err := k.ProviderGPUs.Set(ctx, collections.Join(provider, g.Uuid)); err != nil {
			return nil, err
		}
		fingerprints[i] = g.Fingerprint
		uuids[i] = g.Uuid
	}
	if err := k.inheritGPUHistories(ctx, provider, p, uuids); err != nil {
		return nil, err
	}
	p.GpuCount += uint32(len(infos))
	return fingerprints, k.setProvider(ctx, provider, p)
}

// deregisterGPU unbinds a GPU that is not committed and remembers the
// reliability of the provider it leaves.
func (k Keeper) deregisterGPU(ctx context.Context, provider sdk.AccAddress, p types.Provider, g types.GPU) error {
	if g.Committed {
		return errorsmod.Wrapf(types.ErrGPUCommitted, "%s: close its offer first", g.Uuid)
	}
	if err := k.rememberGPU(ctx, provider, g); err != nil {
		return err
	}
	if err := k.GPUsByUUID.Remove(ctx, g.Uuid); err != nil {
		return err
	}
	if err := k.ProviderGPUs.Remove(ctx, collections.Join(provider, g.Uuid)); err != nil {
		return err
	}
	p.GpuCount--
	return k.setProvider(ctx, provider, p)
}
