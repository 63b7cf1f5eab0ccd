package keeper

import (
	"context"
	"errors"

	"cosmossdk.io/collections"
	errorsmod "cosmossdk.io/errors"
	"cosmossdk.io/math"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/bridge/types"
)

// WithdrawToEvm burns amount of the bridged denom from sender and adds it to
// the EVM recipient's cumulative total, paid by the next payout root. It is
// refused, with nothing moved, for another denom, less than min_withdrawal,
// more than the sender holds, a new recipient once the tree is full, or
// when withdrawals would pass what was ever deposited (so no root can ask
// the vault for more than it took in).
func (m msgServer) WithdrawToEvm(ctx context.Context, msg *types.MsgWithdrawToEvm) (*types.MsgWithdrawToEvmResponse, error) {
	sender, err := m.addressCodec.StringToBytes(msg.Sender)
	if err != nil {
		return nil, errorsmod.Wrapf(types.ErrInvalidAddress, "sender: %v", err)
	}
	recipient, err := types.ParseEvmAddress(msg.EvmRecipient)
	if err != nil {
		return nil, err
	}
	params, err := m.Params.Get(ctx)
	if err != nil {
		return nil, err
	}
	amt := msg.Amount
	if amt.Denom != params.Denom || amt.Amount.IsNil() {
		return nil, errorsmod.Wrapf(types.ErrInvalidAmount, "withdraw %s, not %q", amt.Denom, params.Denom)
	}
	if amt.Amount.LT(params.MinWithdrawal) {
		return nil, errorsmod.Wrapf(types.ErrInvalidAmount, "%s is below the minimum withdrawal %s", amt.Amount, params.MinWithdrawal)
	}
	if have := m.bank.SpendableCoin(ctx, sender, amt.Denom); have.Amount.LT(amt.Amount) {
		return nil, errorsmod.Wrapf(types.ErrInsufficientFunds, "has %s, withdraws %s", have, amt)
	}
	totals, err := m.Totals.Get(ctx)
	if err != nil {
		return nil, err
	}
	if totals.Withdrawn.Add(amt.Amount).GT(totals.Deposited) {
		return nil, errorsmod.Wrapf(types.ErrAboveBridged, "deposited %s, withdrawn %s, asked %s", totals.Deposited, totals.Withdrawn, amt.Amount)
	}
	progress, err := m.Progress.Get(ctx)
	if err != nil {
		return nil, err
	}
	cum, err := m.Cumulative.Get(ctx, recipient.Bytes())
	switch {
	case errors.Is(err, collections.ErrNotFound):
		if progress.Recipients >= params.MaxRecipients {
			return nil, errorsmod.Wrapf(types.ErrTooManyRecipients, "%d recipients", progress.Recipients)
		}
		progress.Recipients++
		cum = math.ZeroInt()
	case err != nil:
		return nil, err
	}

	coins := sdk.NewCoins(amt)
	if err := m.bank.SendCoinsFromAccountToModule(ctx, sender, types.ModuleName, coins); err != nil {
		return nil, errorsmod.Wrap(types.ErrInsufficientFunds, err.Error())
	}
	if err := m.bank.BurnCoins(ctx, types.ModuleName, coins); err != nil {
		return nil, err
	}
	cum = cum.Add(amt.Amount)
	if err := m.Cumulative.Set(ctx, recipient.Bytes(), cum); err != nil {
		return nil, err
	}
	totals.Withdrawn = totals.Withdrawn.Add(amt.Amount)
	if err := m.Totals.Set(ctx, totals); err != nil {
		return nil, err
	}
	progress.WithdrawnSinceRoot = true
	if err := m.Progress.Set(ctx, progress); err != nil {
		return nil, err
	}
	return &types.MsgWithdrawToEvmResponse{Cumulative: cum}, sdk.UnwrapSDKContext(ctx).EventManager().EmitTypedEvent(
		&types.EventWithdrawal{Sender: msg.Sender, EvmRecipient: recipient.Hex(), Amount: amt.Amount, Cumulative: cum})
}
