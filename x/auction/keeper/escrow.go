package keeper

import (
	"context"
	"time"

	errorsmod "cosmossdk.io/errors"
	sdkmath "cosmossdk.io/math"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/auction/types"
)

// A renter's money for jobs moves only through this file (docs/design.md#escrow):
// deposit when a job is posted, allot at clearing (the surplus back to the
// renter at once), pay proven time to the payee, refund the rest, and pay
// the relayer of a wallet-signed message its fee. One
// invariant holds after every call (EscrowInvariant): the escrow account
// holds exactly the deposits of OPEN jobs plus escrow − paid of every live
// lease, and no lease is paid beyond its escrow.

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
// price (types.Allotments, one per winner's GPU count) and refunds at once
// everything above ceil(price × Σgpus × duration / 3600).
func (k Keeper) allot(ctx context.Context, job types.Job, price sdk.Coin, gpus []uint32) ([]sdk.Coin, error) {
	allot := types.Allotments(price, gpus, job.Spec.DurationSeconds)
	total := sdkmath.ZeroInt()
	for _, a := range allot {
		total = total.Add(a.Amount)
	}
	return allot, k.refund(ctx, job.Id, 0, job.Renter, job.Deposit.SubAmount(total))
}

// PayLeases is how x/settlement pays proven time. settle runs once and
// calls pay for each lease it settles, with the end of the lease's proven
// time; pay marks the lease paid up to there and returns the payment. When
// settle returns, the sum of what pay returned moves from escrow to the
// payee in one transfer (one bank transfer and its events per message, not
// per proof), and PayLeases returns it. If settle fails nothing moves (the
// caller's tx fails with it).
func (k Keeper) PayLeases(ctx context.Context, settle func(pay types.PayFunc) error) (sdk.Coins, error) {
	var accrued sdk.Coins
	pay := func(leaseID uint64, provenUntil time.Time) (sdk.Coin, error) {
		p, err := k.accrue(ctx, leaseID, provenUntil)
		if err != nil {
			return sdk.Coin{}, err
		}
		accrued = accrued.Add(p)
		return p, nil
	}
	if err := settle(pay); err != nil {
		return nil, err
	}
	if accrued.IsZero() {
		return accrued, nil
	}
	return accrued, k.bank.SendCoinsFromModuleToModule(ctx, types.EscrowAccount, k.payee, accrued)
}

// accrue marks a lease paid up to until (clamped to its start and, for a
// CLOSING lease, its end): floor(price × gpus × elapsed / 3600) − paid.
// Cumulative, so rounding never drifts and the last payment settles to the
// unit; zero when nothing new is due.
func (k Keeper) accrue(ctx context.Context, leaseID uint64, until time.Time) (sdk.Coin, error) {
	l, err := k.Lease(ctx, leaseID)
	if err != nil {
		return sdk.Coin{}, err
	}
	switch l.Status {
	case types.LEASE_STATUS_ACTIVE:
	case types.LEASE_STATUS_CLOSING:
		if until.After(l.EndedAt) { // its clock stopped there
			until = l.EndedAt
		}
	default:
		return sdk.Coin{}, errorsmod.Wrapf(types.ErrInvalidLeaseState, "lease %d is %s", leaseID, l.Status)
	}
	due := types.Due(l.Price, uint32(len(l.GpuUuids)), elapsedSeconds(l, until))
	pay := due.Sub(l.Paid)
	if !pay.IsPositive() {
		return sdk.NewCoin(l.Price.Denom, sdkmath.ZeroInt()), nil
	}
	l.Paid = due
	if err := k.Leases.Set(ctx, l.Id, l); err != nil {
		return sdk.Coin{}, err
	}
	return pay, sdk.UnwrapSDKContext(ctx).EventManager().EmitTypedEvent(&types.EventLeasePaid{LeaseId: l.Id, Amount: pay, Paid: due})
}

// elapsedSeconds is the whole seconds of l's run up to until, within [0, duration].
func elapsedSeconds(l types.Lease, until time.Time) uint64 {
	if !until.After(l.Start) {
		return 0
	}
	return min(uint64(until.Sub(l.Start)/time.Second), l.DurationSeconds)
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
	return sdk.UnwrapSDKContext(ctx).EventManager().EmitTypedEvent(&types.EventEscrowRefunded{
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
