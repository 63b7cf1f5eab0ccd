package keeper

import (
	"context"
	"errors"

	"cosmossdk.io/collections"
	errorsmod "cosmossdk.io/errors"
	"cosmossdk.io/math"

	sdk "github.com/cosmos/cosmos-sdk/types"
	sdkerrors "github.com/cosmos/cosmos-sdk/types/errors"
)

// Backing per holder. Genesis may mint the denom with no deposit behind it
// (a development chain's pre-mint, declared per holder). Each holder's
// Unbacked mark says how much of its balance is such; the rest of its
// balance is bridged in and can always be withdrawn. Marks move with the
// coins (SendRestriction), a holder spending its unbacked coins first, so
//
//	0 < Unbacked[a] ≤ balance(a)   and   Σ Unbacked = totals.unbacked,
//
// and with supply = unbacked + deposited − withdrawn, Σ (balance − mark) is
// exactly deposited − withdrawn: the vault's balance. A bridged network has
// no marks and pays one store read per bank send for the check.

// UnbackedOf is addr's unbacked balance of the bridged denom (zero if none).
func (k Keeper) UnbackedOf(ctx context.Context, addr sdk.AccAddress) (math.Int, error) {
	mark, err := k.Unbacked.Get(ctx, addr)
	if errors.Is(err, collections.ErrNotFound) {
		return math.ZeroInt(), nil
	}
	return mark, err
}

// setUnbacked stores a mark; a zero mark is no entry.
func (k Keeper) setUnbacked(ctx context.Context, addr sdk.AccAddress, mark math.Int) error {
	if mark.IsZero() {
		return k.Unbacked.Remove(ctx, addr)
	}
	return k.Unbacked.Set(ctx, addr, mark)
}

// Withdrawable is what addr may withdraw now: its spendable balance of the
// bridged denom less its unbacked coins.
func (k Keeper) Withdrawable(ctx context.Context, addr sdk.AccAddress) (math.Int, error) {
	p, err := k.Params.Get(ctx)
	if err != nil {
		return math.Int{}, err
	}
	backed, err := k.backedBalance(ctx, addr, p.Denom)
	if err != nil {
		return math.Int{}, err
	}
	return math.MinInt(backed, k.bank.SpendableCoin(ctx, addr, p.Denom).Amount), nil
}

// backedBalance is addr's balance of denom (the bridged one) less its
// unbacked mark: the coins a deposit stands behind. A holder without a mark
// costs one store read and no balance read beyond the bank's.
func (k Keeper) backedBalance(ctx context.Context, addr sdk.AccAddress, denom string) (math.Int, error) {
	mark, err := k.UnbackedOf(ctx, addr)
	if err != nil {
		return math.Int{}, err
	}
	return math.MaxInt(math.ZeroInt(), k.bank.GetBalance(ctx, addr, denom).Amount.Sub(mark)), nil
}

// SendRestriction is x/bank's send restriction for the bridged denom (bank
// runs it before every SendCoins and every output of InputOutputCoins, for
// every module; see depinject.go). It moves unbacked marks with the coins:
// the sender spends its unbacked coins first,
//
//	moved = min(amount of denom sent, Unbacked[from]),
//
// so a holder's bridged coins are the last to leave it and receiving
// unbacked coins never costs a holder its own. It never redirects a send and
// fails one only on a store error or when the sender cannot pay (the send
// would fail anyway; refusing first keeps a caller that ignores the error
// from moving a mark without its coins). A sender without a mark, the
// bridged network's only case, costs one store read.
func (k Keeper) SendRestriction(ctx context.Context, from, to sdk.AccAddress, amt sdk.Coins) (sdk.AccAddress, error) {
	mark, err := k.UnbackedOf(ctx, from)
	if err != nil || mark.IsZero() || from.Equals(to) {
		return to, err
	}
	if to.Equals(k.moduleAddr) {
		// A withdrawal (users may not send to the bridge's account): Withdraw
		// let it take only backed coins, so the mark stays with the sender.
		return to, nil
	}
	p, err := k.Params.Get(ctx)
	if err != nil {
		return nil, err
	}
	sent := amt.AmountOf(p.Denom)
	if !sent.IsPositive() {
		return to, nil
	}
	if have := k.bank.SpendableCoin(ctx, from, p.Denom); have.Amount.LT(sent) {
		return nil, errorsmod.Wrapf(sdkerrors.ErrInsufficientFunds, "spendable balance %s is smaller than %s%s", have, sent, p.Denom)
	}
	if bal := k.bank.GetBalance(ctx, from, p.Denom).Amount; mark.GT(bal) {
		// Coins left from without a send: only x/bridge burns the denom, so
		// this is never expected; book the difference as burned unbacked
		// coins rather than let the stale mark travel.
		if err := k.burnUnbacked(ctx, mark.Sub(bal)); err != nil {
			return nil, err
		}
		mark = bal
	}
	moved := math.MinInt(sent, mark)
	if err := k.setUnbacked(ctx, from, mark.Sub(moved)); err != nil {
		return nil, err
	}
	toMark, err := k.UnbackedOf(ctx, to)
	if err != nil {
		return nil, err
	}
	return to, k.setUnbacked(ctx, to, toMark.Add(moved))
}

// burnUnbacked takes amount off totals.unbacked: unbacked coins that left
// the supply.
func (k Keeper) burnUnbacked(ctx context.Context, amount math.Int) error {
	t, err := k.Totals.Get(ctx)
	if err != nil {
		return err
	}
	t.Unbacked = t.Unbacked.Sub(amount)
	return k.Totals.Set(ctx, t)
}
