package keeper

import (
	"context"
	"errors"

	"cosmossdk.io/collections"
	errorsmod "cosmossdk.io/errors"
	"github.com/ethereum/go-ethereum/common"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/contracts/payout"
	"github.com/idlegpu/idlegpu/x/bridge/types"
)

// checkConfirm is the rule for a confirmation: the signature must recover
// (types.RecoverSigner) to the validator's registered EVM signer, and the
// validator must not have confirmed this item already.
func checkConfirm[K any](ctx context.Context, m collections.Map[collections.Pair[K, sdk.ValAddress], types.Confirm],
	id K, val sdk.ValAddress, signer types.EvmSigner, digest common.Hash, sig []byte,
) (types.Confirm, error) {
	has, err := m.Has(ctx, collections.Join(id, val))
	if err != nil {
		return types.Confirm{}, err
	}
	if has {
		return types.Confirm{}, errorsmod.Wrapf(types.ErrAlreadyConfirmed, "%s", signer.Validator)
	}
	got, err := types.RecoverSigner(digest, sig)
	if err != nil {
		return types.Confirm{}, err
	}
	if got.Hex() != signer.EvmAddress {
		return types.Confirm{}, errorsmod.Wrapf(types.ErrBadSignature, "signed by %s, %s's signer is %s", got.Hex(), signer.Validator, signer.EvmAddress)
	}
	return types.Confirm{Validator: signer.Validator, EvmAddress: signer.EvmAddress, Signature: sig,
		Height: sdk.UnwrapSDKContext(ctx).BlockHeight()}, nil
}

// ConfirmValset stores a registered signer's signature over a valset's
// checkpoint. Any registered signer may confirm, in the set or not: the
// vault rotates from its current set, whose members may have left since.
func (m msgServer) ConfirmValset(ctx context.Context, msg *types.MsgConfirmValset) (*types.MsgConfirmValsetResponse, error) {
	val, signer, err := m.orchestratorOf(ctx, msg.Orchestrator)
	if err != nil {
		return nil, err
	}
	vs, err := m.Valsets.Get(ctx, msg.Nonce)
	if errors.Is(err, collections.ErrNotFound) {
		return nil, errorsmod.Wrapf(types.ErrValsetNotFound, "nonce %d", msg.Nonce)
	}
	if err != nil {
		return nil, err
	}
	c, err := checkConfirm(ctx, m.ValsetConfirms, msg.Nonce, val, signer, common.HexToHash(vs.Checkpoint), msg.Signature)
	if err != nil {
		return nil, err
	}
	return &types.MsgConfirmValsetResponse{}, m.ValsetConfirms.Set(ctx, collections.Join(msg.Nonce, val), c)
}

// ConfirmRoot stores a signature over a root's digest by a member of the
// valset that signs it, and marks the root ready once the members'
// signatures carry more than the vault's threshold of normalised power.
func (m msgServer) ConfirmRoot(ctx context.Context, msg *types.MsgConfirmRoot) (*types.MsgConfirmRootResponse, error) {
	val, signer, err := m.orchestratorOf(ctx, msg.Orchestrator)
	if err != nil {
		return nil, err
	}
	root, err := m.Roots.Get(ctx, msg.Epoch)
	if errors.Is(err, collections.ErrNotFound) {
		return nil, errorsmod.Wrapf(types.ErrRootNotFound, "epoch %d", msg.Epoch)
	}
	if err != nil {
		return nil, err
	}
	vs, err := m.Valsets.Get(ctx, root.ValsetNonce)
	if err != nil {
		return nil, err
	}
	if memberPower(vs, signer.EvmAddress) == 0 {
		return nil, errorsmod.Wrapf(types.ErrNotInValset, "%s is not in valset %d", signer.EvmAddress, vs.Nonce)
	}
	c, err := checkConfirm(ctx, m.RootConfirms, msg.Epoch, val, signer, common.HexToHash(root.Digest), msg.Signature)
	if err != nil {
		return nil, err
	}
	if err := m.RootConfirms.Set(ctx, collections.Join(msg.Epoch, val), c); err != nil {
		return nil, err
	}
	return &types.MsgConfirmRootResponse{}, m.markReady(sdk.UnwrapSDKContext(ctx), root, vs)
}

// markReady sets a root's ready height once its confirmations pass the
// vault's threshold (payout.PowerThreshold of the set's normalised power).
func (k Keeper) markReady(ctx sdk.Context, root types.PayoutRoot, vs types.Valset) error {
	if root.ReadyHeight != 0 {
		return nil
	}
	confirms, err := collectConfirms(ctx, k.RootConfirms, root.Epoch)
	if err != nil {
		return err
	}
	var power uint64
	for _, c := range confirms {
		power += memberPower(vs, c.EvmAddress)
	}
	if power <= payout.PowerThreshold {
		return nil
	}
	root.ReadyHeight = ctx.BlockHeight()
	if err := k.Roots.Set(ctx, root.Epoch, root); err != nil {
		return err
	}
	return ctx.EventManager().EmitTypedEvent(&types.EventRootReady{Epoch: root.Epoch, Root: root.Root})
}

// memberPower is evm's normalised power in vs (0 when not a member).
func memberPower(vs types.Valset, evm string) uint64 {
	for _, m := range vs.Members {
		if m.EvmAddress == evm {
			return m.Power
		}
	}
	return 0
}

// collectConfirms reads every confirmation of one valset or root.
func collectConfirms(ctx context.Context, m collections.Map[collections.Pair[uint64, sdk.ValAddress], types.Confirm], id uint64) ([]types.Confirm, error) {
	it, err := m.Iterate(ctx, collections.NewPrefixedPairRange[uint64, sdk.ValAddress](id))
	if err != nil {
		return nil, err
	}
	return it.Values()
}
