package keeper

import (
	"context"
	"errors"
	"math/big"

	"cosmossdk.io/collections"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/contracts/payout"
	"github.com/idlegpu/idlegpu/x/bridge/types"
)

// updateValset makes a new valset when the signers changed or the powers
// moved by more than valset_change_bps since the newest one. Members are the
// bonded validators with a registered signer, powers their share of the
// whole bonded power (payout.NewValsetOfTotal); no valset is made while the
// registered power is two thirds or less, nor before the vault is named.
func (k Keeper) updateValset(ctx sdk.Context, params types.Params) error {
	domain, ok, err := k.domain(ctx, params)
	if err != nil || !ok {
		return err
	}
	candidate, ok, err := k.candidateValset(ctx)
	if err != nil || !ok {
		return err
	}
	p, err := k.Progress.Get(ctx)
	if err != nil {
		return err
	}
	if p.LastValsetNonce > 0 {
		last, err := k.Valsets.Get(ctx, p.LastValsetNonce)
		if err != nil {
			return err
		}
		if !valsetMoved(last, candidate, params.ValsetChangeBps) {
			return nil
		}
	}
	candidate.Nonce = p.LastValsetNonce + 1
	candidate.Height = ctx.BlockHeight()
	vv, err := candidate.VaultValset()
	if err != nil {
		return err
	}
	candidate.Checkpoint = domain.ValsetCheckpoint(vv).Hex()
	if err := k.Valsets.Set(ctx, candidate.Nonce, candidate); err != nil {
		return err
	}
	p.LastValsetNonce = candidate.Nonce
	if err := k.Progress.Set(ctx, p); err != nil {
		return err
	}
	if err := k.Due.Set(ctx, collections.Join3(ctx.BlockHeight()+int64(params.SigningWindowBlocks), types.DueValset, candidate.Nonce)); err != nil {
		return err
	}
	return ctx.EventManager().EmitTypedEvent(&types.EventValsetCreated{Valset: candidate})
}

// candidateValset is the valset the chain would make now.
func (k Keeper) candidateValset(ctx context.Context) (types.Valset, bool, error) {
	total, err := k.staking.GetLastTotalPower(ctx)
	if err != nil {
		return types.Valset{}, false, err
	}
	type bonded struct {
		val   sdk.ValAddress
		power int64
	}
	var vals []bonded // staking's active set: bounded by its max_validators
	if err := k.staking.IterateLastValidatorPowers(ctx, func(val sdk.ValAddress, power int64) bool {
		vals = append(vals, bonded{val, power})
		return false
	}); err != nil {
		return types.Valset{}, false, err
	}
	var members []payout.Member
	byAddr := map[string]string{}
	for _, b := range vals {
		s, err := k.Signers.Get(ctx, b.val)
		if errors.Is(err, collections.ErrNotFound) {
			continue
		}
		if err != nil {
			return types.Valset{}, false, err
		}
		evm, err := types.ParseEvmAddress(s.EvmAddress)
		if err != nil {
			return types.Valset{}, false, err
		}
		members = append(members, payout.Member{Address: evm, Power: uint64(b.power)})
		byAddr[evm.Hex()] = s.Validator
	}
	if len(members) == 0 || len(members) > payout.MaxValidators {
		return types.Valset{}, false, nil
	}
	vs, err := payout.NewValsetOfTotal(0, members, total.BigInt())
	if err != nil {
		// Too little registered power (or none): the bridge waits for more
		// validators to register rather than trust a minority.
		return types.Valset{}, false, nil
	}
	out := types.Valset{}
	for i, a := range vs.Validators {
		out.Members = append(out.Members, types.ValsetMember{EvmAddress: a.Hex(), Power: vs.Powers[i], Validator: byAddr[a.Hex()]})
	}
	return out, true, nil
}

// valsetMoved says whether next differs enough from last to be signed: any
// change of members (a signer joined, left or changed key), or powers moved
// by more than bps of the whole (half the sum of absolute changes, as power
// moving from one member to another counts once).
func valsetMoved(last, next types.Valset, bps uint32) bool {
	if len(last.Members) != len(next.Members) {
		return true
	}
	moved := new(big.Int)
	for i := range last.Members {
		a, b := last.Members[i], next.Members[i]
		if a.EvmAddress != b.EvmAddress || a.Validator != b.Validator {
			return true
		}
		d := new(big.Int).Sub(new(big.Int).SetUint64(a.Power), new(big.Int).SetUint64(b.Power))
		moved.Add(moved, d.Abs(d))
	}
	// moved/2 > bps/10000 × 2^32  ⇔  moved × 10000 > 2 × bps × 2^32
	lhs := moved.Mul(moved, big.NewInt(10_000))
	rhs := new(big.Int).Mul(big.NewInt(2*int64(bps)), new(big.Int).SetUint64(payout.PowerTotal))
	return lhs.Cmp(rhs) > 0
}
