package keeper

import (
	"context"
	"slices"
	"time"

	errorsmod "cosmossdk.io/errors"
	sdkmath "cosmossdk.io/math"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/auction/types"
	"github.com/idlegpu/idlegpu/x/internal/eventjson"
)

// A renter's money for jobs moves only through this file (docs/design.md#escrow):
// deposit when a job is posted, allot at clearing (the surplus back to the
// renter in the same block), pay proven time to the payee, refund the rest,
// and pay the relayer of a wallet-signed message its fee. One invariant
// holds after every message and every EndBlock (EscrowInvariant): the
// escrow account holds exactly the deposits of OPEN jobs plus escrow − paid
// of every live lease, and no lease is paid beyond its escrow. Inside
// EndBlock's clearing the refunds wait in a refundBatch until its last job.

// deposit escrows what a job can cost at its max price:
// ceil(max_price × gpus × duration / 3600).
func (k Keeper) deposit(ctx context.Context, renter sdk.AccAddress, spec types.JobSpec) (sdk.Coin, error) {
	amount := types.Deposit(spec.MaxPrice, spec.GpuCount, spec.DurationSeconds)
	if have := k.bank.SpendableCoin(ctx, renter, amount.Denom); have.IsLT(amount) {
		return sdk.Coin{}, errorsmod.Wrapf(types.ErrInsufficientFunds, "deposit %s, spendable %s", amount, have)
	}
	if err := k.bank.SendCoinsFromAccountToModule(ctx, renter, types.EscrowAccount, sdk.NewCoins(amount)); err != nil {
		return sdk.Coin{}, errorsmod.Wrap(types.ErrInsufficientFunds, err.Error())
	}
	return amount, nil
}

// allot splits a cleared job's deposit among its leases at the clearing
// price (types.Allotments, one per winner's GPU count) and refunds, with
// the block's other clearings, everything above
// ceil(price × Σgpus × duration / 3600).
func (k Keeper) allot(ctx context.Context, job types.Job, price sdk.Coin, gpus []uint32, refunds *refundBatch) ([]sdk.Coin, error) {
	allot := types.Allotments(price, gpus, job.Spec.DurationSeconds)
	total := sdkmath.ZeroInt()
	for _, a := range allot {
		total = total.Add(a.Amount)
	}
	return allot, refunds.add(ctx, job.Id, job.Renter, job.Deposit.SubAmount(total))
}

// refundBatch gathers one EndBlock's clearing refunds: each is announced
// (EventEscrowRefunded) when its job clears, and payRefunds sends each renter's
// sum in one transfer after the block's last clearing, renters in address
// order. A bank transfer per job was a sixth of clearing's cost, and
// nothing in the block reads a renter's balance between clearings.
type refundBatch struct {
	sums    map[string]sdk.Coins
	renters []string
}

func newRefundBatch() *refundBatch { return &refundBatch{sums: map[string]sdk.Coins{}} }

// add records a job's refund and its event.
func (b *refundBatch) add(ctx context.Context, jobID uint64, renter string, amount sdk.Coin) error {
	if !amount.IsPositive() {
		return nil
	}
	if _, ok := b.sums[renter]; !ok {
		b.renters = append(b.renters, renter)
	}
	b.sums[renter] = b.sums[renter].Add(amount)
	return eventjson.Emit(ctx, &types.EventEscrowRefunded{
		JobId: jobID, Renter: renter, Amount: amount,
	})
}

// payRefunds sends the batch's refunds from escrow and empties it.
func (k Keeper) payRefunds(ctx context.Context, b *refundBatch) error {
	slices.Sort(b.renters)
	for _, renter := range b.renters {
		addr, err := k.storedAddress(renter)
		if err != nil {
			return err
		}
		if err := k.bank.SendCoinsFromModuleToAccount(ctx, types.EscrowAccount, addr, b.sums[renter]); err != nil {
			return err
		}
	}
	b.sums, b.renters = map[string]sdk.Coins{}, nil
	return nil
}

// PayLeases pays each lease its proven time (types.Accrue, in order: a
// lease may appear more than once, each time further) and moves their sum
// from escrow to the payee in one transfer (one bank transfer and its
// events per message, not per proof). It returns each payment, in order,
// and the sum. The settling module priced its proofs with the same rule
// beforehand: nothing calls back. If a payment fails nothing moves (the
// caller's tx fails with it).
func (k Keeper) PayLeases(ctx context.Context, payments []types.LeasePayment) ([]sdk.Coin, sdk.Coins, error) {
	each := make([]sdk.Coin, len(payments))
	var total sdk.Coins
	for i, p := range payments {
		c, err := k.accrue(ctx, p.LeaseID, p.ProvenUntil)
		if err != nil {
			return nil, nil, err
		}
		each[i] = c
		total = total.Add(c)
	}
	if total.IsZero() {
		return each, total, nil
	}
	return each, total, k.bank.SendCoinsFromModuleToModule(ctx, types.EscrowAccount, k.payee, total)
}

// accrue marks a lease paid up to until (types.Accrue) and returns the
// payment.
func (k Keeper) accrue(ctx context.Context, leaseID uint64, until time.Time) (sdk.Coin, error) {
	l, err := k.Lease(ctx, leaseID)
	if err != nil {
		return sdk.Coin{}, err
	}
	pay, next, err := types.Accrue(l, until)
	if err != nil || !pay.IsPositive() {
		return pay, err
	}
	if err := k.Leases.Set(ctx, next.Id, next); err != nil {
		return sdk.Coin{}, err
	}
	return pay, eventjson.Emit(ctx, &types.EventLeasePaid{LeaseId: next.Id, Amount: pay, Paid: next.Paid})
}

// refundLease gives an ending lease's renter the unpaid rest of its escrow.
func (k Keeper) refundLease(ctx context.Context, l types.Lease) error {
	return k.refund(ctx, l.JobId, l.Id, l.Renter, l.Escrow.Sub(l.Paid))
}

// refund pays amount from escrow back to the renter and says so.
func (k Keeper) refund(ctx context.Context, jobID, leaseID uint64, renter string, amount sdk.Coin) error {
	if !amount.IsPositive() {
		return nil
	}
	addr, err := k.storedAddress(renter)
	if err != nil {
		return err
	}
	if err := k.bank.SendCoinsFromModuleToAccount(ctx, types.EscrowAccount, addr, sdk.NewCoins(amount)); err != nil {
		return err
	}
	return eventjson.Emit(ctx, &types.EventEscrowRefunded{
		JobId: jobID, LeaseId: leaseID, Renter: renter, Amount: amount,
	})
}

// payRelayer pays the submitter of a renter's wallet-signed message the fee
// the renter signed for, straight from the renter's account (relaySigned
// checked it is within the signed maximum and spendable).
func (k Keeper) payRelayer(ctx context.Context, renter, submitter sdk.AccAddress, fee sdk.Coin) error {
	if !fee.IsPositive() {
		return nil
	}
	if err := k.bank.SendCoins(ctx, renter, submitter, sdk.NewCoins(fee)); err != nil {
		return errorsmod.Wrap(types.ErrInsufficientFunds, err.Error())
	}
	return nil
}
