package keeper

import (
	"context"
	"time"

	"cosmossdk.io/collections"
	errorsmod "cosmossdk.io/errors"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/internal/duequeue"
	"github.com/idlegpu/idlegpu/x/provider/types"
)

// bond moves amount from the operator's balance into its stake.
func (k Keeper) bond(ctx context.Context, operator sdk.AccAddress, p types.Provider, amount sdk.Coin) (types.Provider, error) {
	if err := k.bank.SendCoinsFromAccountToModule(ctx, operator, types.ModuleName, sdk.NewCoins(amount)); err != nil {
		return p, err
	}
	p.Stake = p.Stake.Add(amount)
	return p, k.setProvider(ctx, operator, p)
}

// unbond moves amount of stake into a new unbonding entry completing after
// the unbonding period; until then a slash still reaches it.
func (k Keeper) unbond(ctx context.Context, operator sdk.AccAddress, p types.Provider, amount sdk.Coin, params types.Params) (types.UnbondingEntry, error) {
	id, err := k.UnbondingSeq.Next(ctx)
	if err != nil {
		return types.UnbondingEntry{}, err
	}
	entry := types.UnbondingEntry{
		Id:          id,
		Provider:    p.Operator,
		Amount:      amount,
		CompletesAt: sdk.UnwrapSDKContext(ctx).BlockTime().Add(params.UnbondingPeriod()),
	}
	if err := k.setUnbonding(ctx, operator, entry); err != nil {
		return entry, err
	}
	p.Stake = p.Stake.Sub(amount)
	p.Unbonding = p.Unbonding.Add(amount)
	return entry, k.setProvider(ctx, operator, p)
}

// unbondingCount returns the provider's open unbonding entries, counting at
// most limit of them.
func (k Keeper) unbondingCount(ctx context.Context, operator sdk.AccAddress, limit uint32) (uint32, error) {
	iter, err := k.ProviderUnbondings.Iterate(ctx, collections.NewPrefixedPairRange[sdk.AccAddress, uint64](operator))
	if err != nil {
		return 0, err
	}
	defer iter.Close()
	var n uint32
	for ; iter.Valid() && n < limit; iter.Next() {
		n++
	}
	return n, nil
}

// providerUnbondings returns the provider's unbonding entries by id. The
// list is bounded by max_unbonding_entries.
func (k Keeper) providerUnbondings(ctx context.Context, operator sdk.AccAddress) ([]types.UnbondingEntry, error) {
	return collectOwned(ctx, k.ProviderUnbondings, operator, k.Unbondings)
}

func (k Keeper) setUnbonding(ctx context.Context, operator sdk.AccAddress, e types.UnbondingEntry) error {
	if err := k.Unbondings.Set(ctx, e.Id, e); err != nil {
		return err
	}
	if err := k.UnbondingQueue.Set(ctx, collections.Join(e.CompletesAt, e.Id)); err != nil {
		return err
	}
	return k.ProviderUnbondings.Set(ctx, collections.Join(operator, e.Id))
}

func (k Keeper) removeUnbonding(ctx context.Context, operator sdk.AccAddress, e types.UnbondingEntry) error {
	if err := k.Unbondings.Remove(ctx, e.Id); err != nil {
		return err
	}
	if err := k.UnbondingQueue.Remove(ctx, collections.Join(e.CompletesAt, e.Id)); err != nil {
		return err
	}
	return k.ProviderUnbondings.Remove(ctx, collections.Join(operator, e.Id))
}

// CompleteUnbondings pays back the unbonding entries due by the block time,
// oldest first, at most max_unbondings_per_block of them; the rest wait for
// the next block. It returns how many it completed.
func (k Keeper) CompleteUnbondings(ctx context.Context) (int, error) {
	params, err := k.Params.Get(ctx)
	if err != nil {
		return 0, err
	}
	now := sdk.UnwrapSDKContext(ctx).BlockTime()
	due, err := k.dueUnbondings(ctx, now, params.MaxUnbondingsPerBlock)
	if err != nil {
		return 0, err
	}
	for _, id := range due {
		if err := k.completeUnbonding(ctx, id); err != nil {
			return 0, err
		}
	}
	return len(due), nil
}

// dueUnbondings collects (before any write) the ids of up to limit entries
// completing at or before now.
func (k Keeper) dueUnbondings(ctx context.Context, now time.Time, limit uint32) ([]uint64, error) {
	it, err := k.UnbondingQueue.Iterate(ctx, nil)
	if err != nil {
		return nil, err
	}
	keys, err := duequeue.Take(it, limit, func(key collections.Pair[time.Time, uint64]) bool { return !key.K1().After(now) })
	ids := make([]uint64, len(keys))
	for i, key := range keys {
		ids[i] = key.K2()
	}
	return ids, err
}

func (k Keeper) completeUnbonding(ctx context.Context, id uint64) error {
	e, err := k.Unbondings.Get(ctx, id)
	if err != nil {
		return err
	}
	operator, err := k.operator(e.Provider)
	if err != nil {
		return err
	}
	p, err := k.provider(ctx, operator)
	if err != nil {
		return err
	}
	if err := k.removeUnbonding(ctx, operator, e); err != nil {
		return err
	}
	if err := k.bank.SendCoinsFromModuleToAccount(ctx, types.ModuleName, operator, sdk.NewCoins(e.Amount)); err != nil {
		return errorsmod.Wrapf(err, "paying unbonding %d", id)
	}
	p.Unbonding = p.Unbonding.Sub(e.Amount)
	if err := k.setProvider(ctx, operator, p); err != nil {
		return err
	}
	return sdk.UnwrapSDKContext(ctx).EventManager().EmitTypedEvent(&types.EventUnbondingCompleted{
		Provider: e.Provider, Id: e.Id, Amount: e.Amount,
	})
}

// UnbondingEntries returns the provider's open unbonding entries, oldest first
// (bounded by max_unbonding_entries).
func (k Keeper) UnbondingEntries(ctx context.Context, operator sdk.AccAddress) ([]types.UnbondingEntry, error) {
	return k.providerUnbondings(ctx, operator)
}
