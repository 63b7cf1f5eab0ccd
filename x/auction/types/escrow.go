package types

import (
	"cosmossdk.io/math"

	sdk "github.com/cosmos/cosmos-sdk/types"
)

// SecondsPerHour converts prices per GPU-hour to GPU-seconds.
const SecondsPerHour = 3600

// MaxPriceBits bounds a price's magnitude: with at most 1024 GPUs and 100
// years of seconds, price × GPUs × seconds stays below 2^170, far inside
// math.Int's 256 bits, so escrow arithmetic can never overflow or wrap.
const MaxPriceBits = 128

// gpuSeconds is the product of a GPU count and seconds, exact in 64 bits
// for every validated input (≤ 1024 × 100 years).
func gpuSeconds(gpus uint32, seconds uint64) math.Int {
	return math.NewIntFromUint64(uint64(gpus)).Mul(math.NewIntFromUint64(seconds))
}

// Deposit is what a job escrows at price per GPU-hour:
// ceil(price × gpus × seconds / 3600), in price's denom.
func Deposit(price sdk.Coin, gpus uint32, seconds uint64) sdk.Coin {
	num := price.Amount.Mul(gpuSeconds(gpus, seconds))
	return sdk.NewCoin(price.Denom, num.AddRaw(SecondsPerHour-1).QuoRaw(SecondsPerHour))
}

// Due is what a lease has earned after elapsed seconds:
// floor(price × gpus × elapsed / 3600). Payments are Due − paid, so rounding
// never drifts however often a lease is paid.
func Due(price sdk.Coin, gpus uint32, elapsed uint64) sdk.Coin {
	num := price.Amount.Mul(gpuSeconds(gpus, elapsed))
	return sdk.NewCoin(price.Denom, num.QuoRaw(SecondsPerHour))
}

// Allotments splits a job's escrow at the clearing price among its leases
// (GPU counts gpus): the job keeps ceil(price × Σgpus × seconds / 3600);
// every lease but the last gets floor(price × gpus_i × seconds / 3600), the
// last gets the rest (its floor plus the rounding). They sum to the job's
// escrow exactly, and each covers what its lease can ever be Due.
func Allotments(price sdk.Coin, gpus []uint32, seconds uint64) []sdk.Coin {
	var total uint32
	for _, g := range gpus {
		total += g
	}
	rest := Deposit(price, total, seconds)
	out := make([]sdk.Coin, len(gpus))
	for i, g := range gpus {
		if i == len(gpus)-1 {
			out[i] = rest
			break
		}
		out[i] = Due(price, g, seconds)
		rest = rest.Sub(out[i])
	}
	return out
}
