package keeper

import (
	"context"
	"errors"

	sdk "github.com/cosmos/cosmos-sdk/types"

	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
)

// canTakeWork reports whether the provider can take new work now: x/provider
// would let it commit GPUs (ACTIVE, its stake covering its committed GPUs
// under the current params). JAILED, TOMBSTONED, INACTIVE, under-staked or
// unknown providers cannot. Queries use it so an OPEN offer of such a
// provider is not shown as on sale; x/auction reads the provider itself.
func (k Keeper) canTakeWork(ctx context.Context, provider sdk.AccAddress) (bool, error) {
	err := k.providers.CanCommitGPUs(ctx, provider, 0)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, providertypes.ErrProviderNotActive), errors.Is(err, providertypes.ErrInsufficientStake),
		errors.Is(err, providertypes.ErrProviderNotFound):
		return false, nil
	default:
		return false, err
	}
}

// workCache remembers canTakeWork per provider for the length of one query,
// which may see many offers of the same providers.
type workCache struct {
	k    Keeper
	seen map[string]bool
}

func newWorkCache(k Keeper) *workCache { return &workCache{k: k, seen: map[string]bool{}} }

// of answers canTakeWork for a provider's bech32 address.
func (c *workCache) of(ctx context.Context, provider string) (bool, error) {
	if can, ok := c.seen[provider]; ok {
		return can, nil
	}
	addr, err := c.k.addressCodec.StringToBytes(provider)
	if err != nil {
		return false, err
	}
	can, err := c.k.canTakeWork(ctx, addr)
	if err != nil {
		return false, err
	}
	c.seen[provider] = can
	return can, nil
}
