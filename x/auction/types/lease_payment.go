package types

import (
	"time"

	errorsmod "cosmossdk.io/errors"
	sdkmath "cosmossdk.io/math"

	sdk "github.com/cosmos/cosmos-sdk/types"
)

// LeasePayment is a lease's proven time as the settling module reports
// it: pay the lease up to ProvenUntil.
type LeasePayment struct {
	LeaseID     uint64
	ProvenUntil time.Time
}

// Accrue is the payment rule: paying l its proven time up to until is
// worth floor(price × gpus × elapsed / 3600) − paid, elapsed in whole
// seconds from its start to until, at most its duration and, for a
// CLOSING lease, no further than its end (its clock stopped there). It
// returns the payment and l with Paid raised to the new total; zero when
// nothing new is due. Cumulative, so rounding never drifts and the last
// payment settles the lease to the unit. x/auction applies it when it pays
// (PayLeases) and x/settlement prices each proof with it beforehand, so
// the payment flows one way.
func Accrue(l Lease, until time.Time) (sdk.Coin, Lease, error) {
	switch l.Status {
	case LEASE_STATUS_ACTIVE:
	case LEASE_STATUS_CLOSING:
		if until.After(l.EndedAt) {
			until = l.EndedAt
		}
	default:
		return sdk.Coin{}, l, errorsmod.Wrapf(ErrInvalidLeaseState, "lease %d is %s", l.Id, l.Status)
	}
	due := Due(l.Price, uint32(len(l.GpuUuids)), elapsedSeconds(l, until))
	pay := due.Sub(l.Paid)
	if !pay.IsPositive() {
		return sdk.NewCoin(l.Price.Denom, sdkmath.ZeroInt()), l, nil
	}
	l.Paid = due
	return pay, l, nil
}

// elapsedSeconds is the whole seconds of l's run up to until, within [0, duration].
func elapsedSeconds(l Lease, until time.Time) uint64 {
	if !until.After(l.Start) {
		return 0
	}
	return min(uint64(until.Sub(l.Start)/time.Second), l.DurationSeconds)
}

// LeasePayee names the module account that lease payments go to: the
// module that proves leases' time and pays providers from what it
// receives. The app injects it (x/settlement provides it), so x/auction
// does not depend on who settles.
type LeasePayee struct {
	Module string
}
