package types

import (
	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/internal/check"
)

// EpochFee is the protocol fee of one payment to a lease that had been paid
// paidBefore: floor((paidBefore + pay) × rate) − floor(paidBefore × rate).
// Computed on the lease's cumulative payments, the fees of all its epochs
// sum to floor(total paid × rate) exactly, whatever the epoch size: small
// epochs cannot round the fee away (x/settlement/README.md, "Epochs and payment").
func EpochFee(paidBefore, pay sdk.Coin, rateBps uint32) sdk.Coin {
	after := paidBefore.Amount.Add(pay.Amount)
	owed := after.MulRaw(int64(rateBps)).QuoRaw(check.MaxBps)
	taken := paidBefore.Amount.MulRaw(int64(rateBps)).QuoRaw(check.MaxBps)
	return sdk.NewCoin(pay.Denom, owed.Sub(taken))
}
