package keeper

import (
	"context"
	"errors"
	"slices"

	"cosmossdk.io/collections"
	errorsmod "cosmossdk.io/errors"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/provider/types"
)

// Provider returns the provider operated by addr, or ErrProviderNotFound.
// Its status is the one the current params give it (stakeStatus): a
// params change moves providers between ACTIVE and INACTIVE at once,
// without a write to each, so whoever reads the status to decide whether
// the provider may take work (CanCommitGPUs, x/auction, x/settlement,
// queries) sees it. The stored status catches up on the provider's next write.
func (k Keeper) Provider(ctx context.Context, addr sdk.AccAddress) (types.Provider, error) {
	p, err := k.provider(ctx, addr)
	if err != nil {
		return p, err
	}
	params, err := k.Params.Get(ctx)
	if err != nil {
		return p, err
	}
	p.Status = stakeStatus(p, params)
	return p, nil
}

// provider returns the provider as stored, or ErrProviderNotFound. Its
// JAILED and TOMBSTONED are exact; ACTIVE/INACTIVE may be stale after a
// params change, so code that decides eligibility from it applies
// stakeStatus with the current params (canCommit), and every write
// refreshes it (setProvider).
func (k Keeper) provider(ctx context.Context, addr sdk.AccAddress) (types.Provider, error) {
	p, err := k.Providers.Get(ctx, addr)
	if errors.Is(err, collections.ErrNotFound) {
		return p, errorsmod.Wrapf(types.ErrProviderNotFound, "%s", k.str(addr))
	}
	return p, err
}

// IsAuthorized reports whether signer may act for the provider: it is the
// operator or one of its agents. A provider that does not exist authorizes
// nobody (ErrProviderNotFound).
func (k Keeper) IsAuthorized(ctx context.Context, provider, signer sdk.AccAddress) (bool, error) {
	p, err := k.provider(ctx, provider)
	if err != nil {
		return false, err
	}
	if provider.Equals(signer) {
		return true, nil
	}
	return slices.Contains(p.Agents, k.str(signer)), nil
}

// setProvider stores p after refreshing its status from its stake, and
// emits EventStatusChanged when that moved it between ACTIVE and INACTIVE.
func (k Keeper) setProvider(ctx context.Context, addr sdk.AccAddress, p types.Provider) error {
	params, err := k.Params.Get(ctx)
	if err != nil {
		return err
	}
	before := p.Status
	p.Status = stakeStatus(p, params)
	if err := k.Providers.Set(ctx, addr, p); err != nil {
		return err
	}
	if before != p.Status && before != types.PROVIDER_STATUS_UNSPECIFIED {
		return sdk.UnwrapSDKContext(ctx).EventManager().EmitTypedEvent(&types.EventStatusChanged{
			Provider: p.Operator, From: before, To: p.Status,
		})
	}
	return nil
}

// stakeStatus is the status p's stake gives it: jail and tombstone are
// decided elsewhere and kept; otherwise ACTIVE when the stake covers at least
// one GPU (and every committed one), INACTIVE when it does not.
func stakeStatus(p types.Provider, params types.Params) types.ProviderStatus {
	switch p.Status {
	case types.PROVIDER_STATUS_JAILED, types.PROVIDER_STATUS_TOMBSTONED:
		return p.Status
	}
	need := params.RequiredStake(max(1, p.CommittedGpus))
	if p.Stake.Amount.GTE(need) {
		return types.PROVIDER_STATUS_ACTIVE
	}
	return types.PROVIDER_STATUS_INACTIVE
}

// operator decodes a bech32 account address, as ErrInvalidAddress on failure.
func (k Keeper) operator(addr string) (sdk.AccAddress, error) {
	bz, err := k.addressCodec.StringToBytes(addr)
	if err != nil {
		return nil, errorsmod.Wrapf(types.ErrInvalidAddress, "%q: %v", addr, err)
	}
	return bz, nil
}

// str encodes an address with the chain's prefix. Addresses stored or given
// by the chain are always valid, so an error here is a bug worth a panic.
func (k Keeper) str(addr sdk.AccAddress) string {
	s, err := k.addressCodec.BytesToString(addr)
	if err != nil {
		panic(err)
	}
	return s
}
