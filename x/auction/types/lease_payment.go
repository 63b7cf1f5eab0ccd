package types

import (
	"time"

	sdk "github.com/cosmos/cosmos-sdk/types"
)

// PayFunc pays a lease its proven time up to provenUntil, cumulatively, and
// returns the payment (the keeper's PayLeases hands it to the settling module).
type PayFunc func(leaseID uint64, provenUntil time.Time) (sdk.Coin, error)

// LeasePayee names the module account that lease payments go to: the
// module that proves leases' time and pays providers from what it
// receives. The app injects it (x/settlement provides it), so x/auction
// does not depend on who settles.
type LeasePayee struct {
	Module string
}
