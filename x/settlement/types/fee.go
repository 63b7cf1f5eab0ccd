package types

import (
	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/internal/check"
)

// CarriedFee is the protocol fee of one payment to a provider whose earlier
// payments in the denom left remainder (in 1/10000 of a unit) unpaid:
// floor((remainder + pay × rate) / 10000), carrying the new remainder. The
// fees of all a provider's payments in a denom sum to floor(their total ×
// rate) exactly, whatever the size of each epoch or lease: many small
// leases pay what one large one does, to the unit (docs/design.md#failure-costs-and-fees).
func CarriedFee(remainder uint32, pay sdk.Coin, rateBps uint32) (fee sdk.Coin, carried uint32) {
	total := pay.Amount.MulRaw(int64(rateBps)).AddRaw(int64(remainder))
	fee = sdk.NewCoin(pay.Denom, total.QuoRaw(check.MaxBps))
	return fee, uint32(total.ModRaw(check.MaxBps).Uint64())
}
