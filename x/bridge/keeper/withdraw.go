package keeper

import (
	"context"
	"errors"

	"cosmossdk.io/collections"
	errorsmod "cosmossdk.io/errors"
	"cosmossdk.io/math"

	"github.com/ethereum/go-ethereum/common"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/bridge/types"
)

// WithdrawToEvm is MsgWithdrawToEvm: the sender withdraws its own coins
// (Withdraw).
func (m msgServer) WithdrawToEvm(ctx context.Context, msg *types.MsgWithdrawToEvm) (*types.MsgWithdrawToEvmResponse, error) {
	sender, err := m.addressCodec.StringToBytes(msg.Sender)
	if err != nil {
		return nil, errorsmod.Wrapf(types.ErrInvalidAddress, "sender: %v", err)
	}
	recipient, err := types.ParseEvmAddress(msg.EvmRecipient)
	if err != nil {
		return nil, err
	}
	cum, err := m.Withdraw(ctx, sender, recipient, msg.Amount)
	if err != nil {
		return nil, err
	}
	return &types.MsgWithdrawToEvmResponse{Cumulative: cum}, nil
}

// Withdraw burns amt of the bridged denom from sender and adds it to the
// EVM recipient's cumulative total, paid by the next payout root; it is the
// one path every withdrawal takes (a signed message's or the sender's own).
// It is refused, with nothing moved, for another denom, less than
// min_withdrawal, more than the sender holds, more than the sender holds
// with a deposit behind it (unbacked.go), a new recipient once the tree is
// full, or when withdrawals would pass what was ever deposited (never, if
// the per-holder books hold: a second line, so no root can ask the vault
// for more than it took in).
func (k Keeper) Withdraw(ctx context.Context, sender sdk.AccAddress, recipient common.Address, amt sdk.Coin) (math.Int, error) {
	params, err := k.Params.Get(ctx)
	if err != nil {
		return math.Int{}, err
	}
	if amt.Denom != params.Denom || amt.Amount.IsNil() {
		return math.Int{}, errorsmod.Wrapf(types.ErrInvalidAmount, "withdraw %s, not %q", amt.Denom, params.Denom)
	}
	if amt.Amount.LT(params.MinWithdrawal) {
		return math.Int{}, errorsmod.Wrapf(types.ErrInvalidAmount, "%s is below the minimum withdrawal %s", amt.Amount, params.MinWithdrawal)
	}
	if have := k.bank.SpendableCoin(ctx, sender, amt.Denom); have.Amount.LT(amt.Amount) {
		return math.Int{}, errorsmod.Wrapf(types.ErrInsufficientFunds, "has %s, withdraws %s", have, amt)
	}
	// The send to the module below moves no mark (SendRestriction), so the
	// sender keeps every unbacked coin it had.
	backed, err := k.backedBalance(ctx, sender, amt.Denom)
	if err != nil {
		return math.Int{}, err
	}
	if backed.LT(amt.Amount) {
		return math.Int{}, errorsmod.Wrapf(types.ErrUnbacked, "holds %s%s with a deposit behind it, withdraws %s", backed, amt.Denom, amt)
	}
	totals, err := k.Totals.Get(ctx)
	if err != nil {
		return math.Int{}, err
	}
	if totals.Withdrawn.Add(amt.Amount).GT(totals.Deposited) {
		return math.Int{}, errorsmod.Wrapf(types.ErrAboveBridged, "deposited %s, withdrawn %s, asked %s", totals.Deposited, totals.Withdrawn, amt.Amount)
	}
	progress, err := k.Progress.Get(ctx)
	if err != nil {
		return math.Int{}, err
	}
	cum, err := k.Cumulative.Get(ctx, recipient.Bytes())
	switch {
	case errors.Is(err, collections.ErrNotFound):
		if progress.Recipients >= params.MaxRecipients {
			return math.Int{}, errorsmod.Wrapf(types.ErrTooManyRecipients, "%d recipients", progress.Recipients)
		}
		progress.Recipients++
		cum = math.ZeroInt()
	case err != nil:
		return math.Int{}, err
	}

	coins := sdk.NewCoins(amt)
	if err := k.bank.SendCoinsFromAccountToModule(ctx, sender, types.ModuleName, coins); err != nil {
		return math.Int{}, errorsmod.Wrap(types.ErrInsufficientFunds, err.Error())
	}
	if err := k.bank.BurnCoins(ctx, types.ModuleName, coins); err != nil {
		return math.Int{}, err
	}
	cum = cum.Add(amt.Amount)
	if err := k.Cumulative.Set(ctx, recipient.Bytes(), cum); err != nil {
		return math.Int{}, err
	}
	totals.Withdrawn = totals.Withdrawn.Add(amt.Amount)
	if err := k.Totals.Set(ctx, totals); err != nil {
		return math.Int{}, err
	}
	progress.WithdrawnSinceRoot = true
	if err := k.Progress.Set(ctx, progress); err != nil {
		return math.Int{}, err
	}
	senderStr, err := k.addressCodec.BytesToString(sender)
	if err != nil {
		return math.Int{}, err
	}
	return cum, sdk.UnwrapSDKContext(ctx).EventManager().EmitTypedEvent(
		&types.EventWithdrawal{Sender: senderStr, EvmRecipient: recipient.Hex(), Amount: amt.Amount, Cumulative: cum})
}
