package keeper

import (
	"context"

	"cosmossdk.io/collections"
	errorsmod "cosmossdk.io/errors"
	"cosmossdk.io/math"
	"github.com/ethereum/go-ethereum/common"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/contracts/payout"
	"github.com/idlegpu/idlegpu/x/bridge/types"
)

// buildRoot makes the payout root of a new epoch every payout_epoch_blocks
// blocks when something changed: withdrawals since the last root, or a newer
// valset than the one the last root is signed by (the vault only takes roots
// signed by its current set, so the same totals are signed again by the
// new one). The leaves are every recipient's cumulative total, built with
// contracts/payout exactly as the vault verifies them.
func (k Keeper) buildRoot(ctx sdk.Context, params types.Params) error {
	if ctx.BlockHeight()%int64(params.PayoutEpochBlocks) != 0 {
		return nil
	}
	p, err := k.Progress.Get(ctx)
	if err != nil {
		return err
	}
	if p.LastValsetNonce == 0 {
		return nil
	}
	domain, ok, err := k.domain(ctx, params)
	if err != nil || !ok {
		return err
	}
	var prev types.PayoutRoot
	if p.LastEpoch > 0 {
		if prev, err = k.Roots.Get(ctx, p.LastEpoch); err != nil {
			return err
		}
		if !p.WithdrawnSinceRoot && prev.ValsetNonce == p.LastValsetNonce {
			return nil
		}
	} else if !p.WithdrawnSinceRoot {
		return nil
	}

	entries, err := k.cumulativeEntries(ctx, params.MaxRecipients)
	if err != nil {
		return err
	}
	tree, err := payout.NewTree(entries)
	if err != nil {
		return err
	}
	total := math.NewIntFromBigInt(tree.Total())
	totals, err := k.Totals.Get(ctx)
	if err != nil {
		return err
	}
	// The vault refuses a total that decreases or passes its deposits;
	// withdraw.go keeps both true, checked again here before signing.
	if !total.Equal(totals.Withdrawn) || total.GT(totals.Deposited) ||
		(p.LastEpoch > 0 && total.LT(prev.TotalCumulative)) {
		return errorsmod.Wrapf(types.ErrInvariantViolation, "root total %s, withdrawn %s, deposited %s", total, totals.Withdrawn, totals.Deposited)
	}
	epoch := p.LastEpoch + 1
	digest, err := domain.RootDigest(p.LastValsetNonce, epoch, tree.Root(), tree.Total())
	if err != nil {
		return err
	}
	root := types.PayoutRoot{
		Epoch: epoch, Root: tree.Root().Hex(), TotalCumulative: total, ValsetNonce: p.LastValsetNonce,
		Digest: digest.Hex(), Recipients: uint32(tree.Len()), Height: ctx.BlockHeight(),
	}
	if err := k.Roots.Set(ctx, epoch, root); err != nil {
		return err
	}
	for _, e := range entries {
		if err := k.Leaves.Set(ctx, collections.Join(epoch, e.Account.Bytes()), math.NewIntFromBigInt(e.Cumulative)); err != nil {
			return err
		}
	}
	p.LastEpoch, p.WithdrawnSinceRoot = epoch, false
	if err := k.Progress.Set(ctx, p); err != nil {
		return err
	}
	if err := k.Due.Set(ctx, collections.Join3(ctx.BlockHeight()+int64(params.SigningWindowBlocks), types.DueRoot, epoch)); err != nil {
		return err
	}
	return ctx.EventManager().EmitTypedEvent(&types.EventRootCreated{Root: root})
}

// cumulativeEntries reads every recipient's total (at most max_recipients,
// which withdraw.go enforces).
func (k Keeper) cumulativeEntries(ctx context.Context, limit uint32) ([]payout.Entry, error) {
	it, err := k.Cumulative.Iterate(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer it.Close()
	var out []payout.Entry
	for ; it.Valid() && uint32(len(out)) < limit; it.Next() {
		kv, err := it.KeyValue()
		if err != nil {
			return nil, err
		}
		out = append(out, payout.Entry{Account: common.BytesToAddress(kv.Key), Cumulative: kv.Value.BigInt()})
	}
	return out, nil
}

// rootTree rebuilds a kept root's tree from its leaves (for proofs).
func (k Keeper) rootTree(ctx context.Context, epoch uint64) (*payout.Tree, error) {
	it, err := k.Leaves.Iterate(ctx, collections.NewPrefixedPairRange[uint64, []byte](epoch))
	if err != nil {
		return nil, err
	}
	kvs, err := it.KeyValues()
	if err != nil {
		return nil, err
	}
	if len(kvs) == 0 {
		return nil, errorsmod.Wrapf(types.ErrRootNotFound, "epoch %d has no kept leaves", epoch)
	}
	entries := make([]payout.Entry, len(kvs))
	for i, kv := range kvs {
		entries[i] = payout.Entry{Account: common.BytesToAddress(kv.Key.K2()), Cumulative: kv.Value.BigInt()}
	}
	return payout.NewTree(entries)
}
