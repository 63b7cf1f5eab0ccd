package keeper

import (
	"context"

	"cosmossdk.io/collections"
	errorsmod "cosmossdk.io/errors"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/auction/types"
	"github.com/idlegpu/idlegpu/x/internal/duequeue"
)

// Wallet signers' nonces are unordered (docs/design.md#wallet-signed-bids):
// any unused number works, so a renter may have several bids in flight, and
// a nonce is kept only until its message's deadline passes — after that the
// message is refused as expired anyway — so state stays bounded by the
// signed messages of the last max_signed_deadline_seconds.

// useNonce records a signer's nonce until deadline, or refuses a nonce
// already used in a message still within its deadline.
func (k Keeper) useNonce(ctx context.Context, signer sdk.AccAddress, nonce, deadline uint64) error {
	key := collections.Join(signer, nonce)
	used, err := k.UsedNonces.Has(ctx, key)
	if err != nil {
		return err
	}
	if used {
		return errorsmod.Wrapf(types.ErrNonceUsed, "nonce %d of %s", nonce, signer)
	}
	if err := k.UsedNonces.Set(ctx, key, deadline); err != nil {
		return err
	}
	return k.NonceExpiry.Set(ctx, collections.Join3(deadline, signer, nonce))
}

// pruneNonces drops, oldest first and at most limit, the nonces whose
// deadline is before the block time (a message at exactly its deadline is
// still valid, so its nonce stays through that second).
func (k Keeper) pruneNonces(ctx context.Context, limit uint32) error {
	now := uint64(max(sdk.UnwrapSDKContext(ctx).BlockTime().Unix(), 0))
	it, err := k.NonceExpiry.Iterate(ctx, nil)
	if err != nil {
		return err
	}
	due, err := duequeue.Take(it, limit, func(key collections.Triple[uint64, sdk.AccAddress, uint64]) bool { return key.K1() < now })
	if err != nil {
		return err
	}
	for _, key := range due {
		if err := k.NonceExpiry.Remove(ctx, key); err != nil {
			return err
		}
		if err := k.UsedNonces.Remove(ctx, collections.Join(key.K2(), key.K3())); err != nil {
			return err
		}
	}
	return nil
}
