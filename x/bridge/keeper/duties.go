package keeper

import (
	"context"
	"errors"

	"cosmossdk.io/collections"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/bridge/types"
	"github.com/idlegpu/idlegpu/x/internal/duequeue"
)

type dueKey = collections.Triple[int64, uint32, uint64]

// checkDuties runs the due checks for missed duties: signing_window_blocks
// after a deposit was credited, or a valset or root was made, every
// validator that should have attested or signed it and did not is
// recorded (MissRecord) and evented. Nothing is slashed or jailed here:
// see README.md#missed-duties for why. A deposit's votes are deleted with
// its check, as nothing reads them after.
func (k Keeper) checkDuties(ctx sdk.Context, params types.Params) error {
	it, err := k.Due.Iterate(ctx, nil)
	if err != nil {
		return err
	}
	keys, err := duequeue.Take[dueKey](it, params.MaxDutyChecksPerBlock, func(key dueKey) bool { return key.K1() <= ctx.BlockHeight() })
	if err != nil {
		return err
	}
	for _, key := range keys {
		missed, err := k.missedBy(ctx, key.K2(), key.K3())
		if err != nil {
			return err
		}
		for _, val := range missed {
			if err := k.recordMiss(ctx, val, key.K2(), key.K3()); err != nil {
				return err
			}
		}
		if key.K2() == types.DueDeposit {
			if err := k.Votes.Clear(ctx, collections.NewPrefixedPairRange[uint64, sdk.ValAddress](key.K3())); err != nil {
				return err
			}
		}
		if err := k.Due.Remove(ctx, key); err != nil {
			return err
		}
	}
	return nil
}

// missedBy lists who owed a duty and did not do it. A deposit is owed by
// every bonded validator with a registered signer; a valset or root by the
// members of the set that signs it (for a valset: itself).
func (k Keeper) missedBy(ctx context.Context, kind uint32, id uint64) ([]sdk.ValAddress, error) {
	var owed []sdk.ValAddress
	var done func(sdk.ValAddress) (bool, error)
	switch kind {
	case types.DueDeposit:
		if err := k.staking.IterateLastValidatorPowers(ctx, func(val sdk.ValAddress, _ int64) bool {
			owed = append(owed, val)
			return false
		}); err != nil {
			return nil, err
		}
		done = func(v sdk.ValAddress) (bool, error) { return k.Votes.Has(ctx, collections.Join(id, v)) }
	case types.DueValset:
		vs, err := k.Valsets.Get(ctx, id)
		if err != nil {
			return nil, err
		}
		if owed, err = k.membersOf(vs); err != nil {
			return nil, err
		}
		done = func(v sdk.ValAddress) (bool, error) { return k.ValsetConfirms.Has(ctx, collections.Join(id, v)) }
	case types.DueRoot:
		root, err := k.Roots.Get(ctx, id)
		if errors.Is(err, collections.ErrNotFound) {
			return nil, nil // pruned already
		}
		if err != nil {
			return nil, err
		}
		vs, err := k.Valsets.Get(ctx, root.ValsetNonce)
		if err != nil {
			return nil, err
		}
		if owed, err = k.membersOf(vs); err != nil {
			return nil, err
		}
		done = func(v sdk.ValAddress) (bool, error) { return k.RootConfirms.Has(ctx, collections.Join(id, v)) }
	}
	var missed []sdk.ValAddress
	for _, v := range owed {
		if kind == types.DueDeposit {
			registered, err := k.Signers.Has(ctx, v)
			if err != nil {
				return nil, err
			}
			if !registered {
				continue
			}
		}
		ok, err := done(v)
		if err != nil {
			return nil, err
		}
		if !ok {
			missed = append(missed, v)
		}
	}
	return missed, nil
}

func (k Keeper) membersOf(vs types.Valset) ([]sdk.ValAddress, error) {
	out := make([]sdk.ValAddress, 0, len(vs.Members))
	for _, m := range vs.Members {
		v, err := k.valCodec.StringToBytes(m.Validator)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

func (k Keeper) recordMiss(ctx sdk.Context, val sdk.ValAddress, kind uint32, id uint64) error {
	valStr, err := k.valCodec.BytesToString(val)
	if err != nil {
		return err
	}
	rec, err := k.Misses.Get(ctx, val)
	if errors.Is(err, collections.ErrNotFound) {
		rec = types.MissRecord{Validator: valStr}
	} else if err != nil {
		return err
	}
	switch kind {
	case types.DueDeposit:
		rec.Deposits++
	case types.DueValset:
		rec.Valsets++
	case types.DueRoot:
		rec.Roots++
	}
	rec.LastHeight = ctx.BlockHeight()
	if err := k.Misses.Set(ctx, val, rec); err != nil {
		return err
	}
	return ctx.EventManager().EmitTypedEvent(&types.EventMissed{Validator: valStr, Kind: types.DueKindName(kind), Id: id, Record: rec})
}
