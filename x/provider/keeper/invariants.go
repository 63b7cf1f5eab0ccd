package keeper

import (
	"context"
	"fmt"

	"cosmossdk.io/collections"
	"cosmossdk.io/math"

	sdk "github.com/cosmos/cosmos-sdk/types"
	authtypes "github.com/cosmos/cosmos-sdk/x/auth/types"

	"github.com/idlegpu/idlegpu/x/internal/check"
	"github.com/idlegpu/idlegpu/x/provider/types"
)

// Invariant is one accounting rule of the module: Check returns what is
// broken, or nil.
type Invariant struct {
	Name  string
	Check func(context.Context) error
}

// Invariants are the module's accounting rules; tests and the simulator run
// them after state changes.
func (k Keeper) Invariants() []Invariant {
	return []Invariant{
		{"stake-backed", k.StakeBackedInvariant},
		{"gpu-owners", k.GPUOwnersInvariant},
		{"reliability-bounds", k.ReliabilityBoundsInvariant},
		{"gpu-histories", k.GPUHistoriesInvariant},
	}
}

// CheckInvariants runs every invariant and returns the first broken one.
func (k Keeper) CheckInvariants(ctx context.Context) error {
	for _, inv := range k.Invariants() {
		if err := inv.Check(ctx); err != nil {
			return fmt.Errorf("%s/%s invariant broken: %w", types.ModuleName, inv.Name, err)
		}
	}
	return nil
}

// StakeBackedInvariant: the module account holds exactly the bonded plus
// unbonding stake of all providers, and each provider's unbonding equals the
// sum of its entries.
func (k Keeper) StakeBackedInvariant(ctx context.Context) error {
	params, err := k.Params.Get(ctx)
	if err != nil {
		return err
	}
	total := math.ZeroInt()
	err = k.Providers.Walk(ctx, nil, func(addr sdk.AccAddress, p types.Provider) (bool, error) {
		entries, err := k.providerUnbondings(ctx, addr)
		if err != nil {
			return true, err
		}
		sum := math.ZeroInt()
		for _, e := range entries {
			sum = sum.Add(e.Amount.Amount)
		}
		if !sum.Equal(p.Unbonding.Amount) {
			return true, fmt.Errorf("provider %s: unbonding %s but entries sum to %s", p.Operator, p.Unbonding.Amount, sum)
		}
		total = total.Add(p.Stake.Amount).Add(p.Unbonding.Amount)
		return false, nil
	})
	if err != nil {
		return err
	}
	held := k.bank.GetBalance(ctx, authtypes.NewModuleAddress(types.ModuleName), params.StakeDenom())
	if !held.Amount.Equal(total) {
		return fmt.Errorf("module account holds %s, providers' bonded + unbonding stake is %s%s", held, total, params.StakeDenom())
	}
	return nil
}

// GPUOwnersInvariant: every GPU's owner exists and lists it, and each
// provider's gpu_count and committed_gpus match its GPUs.
func (k Keeper) GPUOwnersInvariant(ctx context.Context) error {
	err := k.GPUsByUUID.Walk(ctx, nil, func(uuid string, g types.GPU) (bool, error) {
		owner, err := k.operator(g.Provider)
		if err != nil {
			return true, err
		}
		if has, err := k.Providers.Has(ctx, owner); err != nil || !has {
			return true, fmt.Errorf("gpu %s: owner %s does not exist (%v)", uuid, g.Provider, err)
		}
		if has, err := k.ProviderGPUs.Has(ctx, collections.Join(owner, uuid)); err != nil || !has {
			return true, fmt.Errorf("gpu %s: not listed under its owner %s (%v)", uuid, g.Provider, err)
		}
		return false, nil
	})
	if err != nil {
		return err
	}
	return k.Providers.Walk(ctx, nil, func(addr sdk.AccAddress, p types.Provider) (bool, error) {
		gpus, err := k.GPUs(ctx, addr)
		if err != nil {
			return true, err
		}
		var committed uint32
		for _, g := range gpus {
			if g.Provider != p.Operator {
				return true, fmt.Errorf("gpu %s is listed under %s but owned by %s", g.Uuid, p.Operator, g.Provider)
			}
			if g.Committed {
				committed++
			}
		}
		if uint32(len(gpus)) != p.GpuCount || committed != p.CommittedGpus {
			return true, fmt.Errorf("provider %s: gpu_count %d / committed %d, but has %d / %d",
				p.Operator, p.GpuCount, p.CommittedGpus, len(gpus), committed)
		}
		return false, nil
	})
}

// ReliabilityBoundsInvariant: every reliability lies in [0, 10000] bps,
// its carry included (types.Reputation.ValidateReliability).
func (k Keeper) ReliabilityBoundsInvariant(ctx context.Context) error {
	return k.Reputations.Walk(ctx, nil, func(addr sdk.AccAddress, r types.Reputation) (bool, error) {
		if err := r.ValidateReliability(); err != nil {
			return true, fmt.Errorf("provider %s: %w", k.str(addr), err)
		}
		return false, nil
	})
}

// GPUHistoriesInvariant: every record is of a GPU not registered now (a
// registration spends it), left by an existing provider, with a reliability
// in [0, 10000] bps.
func (k Keeper) GPUHistoriesInvariant(ctx context.Context) error {
	return k.GPUHistories.Walk(ctx, nil, func(uuid string, h types.GPUHistory) (bool, error) {
		if h.Uuid != uuid || h.ReliabilityBps > check.MaxBps {
			return true, fmt.Errorf("gpu history %s: record %v", uuid, h)
		}
		if has, err := k.GPUsByUUID.Has(ctx, uuid); err != nil || has {
			return true, fmt.Errorf("gpu history %s: the GPU is registered (%v)", uuid, err)
		}
		left, err := k.operator(h.Provider)
		if err != nil {
			return true, err
		}
		if has, err := k.Providers.Has(ctx, left); err != nil || !has {
			return true, fmt.Errorf("gpu history %s: provider %s does not exist (%v)", uuid, h.Provider, err)
		}
		return false, nil
	})
}
