package keeper

import (
	"context"
	"errors"
	"math/bits"
	"time"

	"cosmossdk.io/collections"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/offer/types"
)

// accrue adds the GPU-seconds since st.UpdatedAt at the current counts and
// moves UpdatedAt to now. Counting is lazy (O(1) per change), so no block
// ever walks all providers.
func accrue(st *types.ProviderStats, now time.Time) {
	if now.After(st.UpdatedAt) {
		dt := uint64(now.Sub(st.UpdatedAt) / time.Second)
		st.OfferedGpuSeconds += uint64(st.OfferedGpus) * dt
		st.LeasedGpuSeconds += uint64(st.LeasedGpus) * dt
		// Keep the sub-second remainder for the next accrual.
		st.UpdatedAt = st.UpdatedAt.Add(time.Duration(dt) * time.Second)
	}
}

// stats returns a provider's stats, or fresh ones starting now.
func (k Keeper) stats(ctx context.Context, provider sdk.AccAddress) (types.ProviderStats, error) {
	st, err := k.Stats.Get(ctx, provider)
	if errors.Is(err, collections.ErrNotFound) {
		now := sdk.UnwrapSDKContext(ctx).BlockTime()
		addr, err := k.addressCodec.BytesToString(provider)
		if err != nil {
			return st, err
		}
		return types.ProviderStats{Provider: addr, Since: now, UpdatedAt: now}, nil
	}
	return st, err
}

// updateStats accrues the provider's GPU-seconds to now, then replaces the
// offer's old contribution to the counts with its new one.
func (k Keeper) updateStats(ctx context.Context, provider sdk.AccAddress, before, after *types.Offer) error {
	st, err := k.stats(ctx, provider)
	if err != nil {
		return err
	}
	accrue(&st, sdk.UnwrapSDKContext(ctx).BlockTime())
	if before != nil {
		offered, leased := before.Contribution()
		st.OfferedGpus -= offered
		st.LeasedGpus -= leased
		if before.Live() {
			st.Offers--
		}
	}
	if after != nil {
		offered, leased := after.Contribution()
		st.OfferedGpus += offered
		st.LeasedGpus += leased
		if after.Live() {
			st.Offers++
		}
	}
	return k.Stats.Set(ctx, provider, st)
}

// FillRate returns a provider's stats accrued to the block time (without
// writing them) and leased / offered GPU-seconds in bps. When the provider
// cannot take new work, its OPEN offers' free GPUs are not on sale: only
// its leased GPUs count as offered, and the GPU-seconds since the last
// offer change accrue at that count. (Its status changes in x/provider
// without a write here, so the stored counters, accrued at each offer
// change, cannot know when it stopped; the time since is counted as it
// stands now.)
func (k Keeper) FillRate(ctx context.Context, provider sdk.AccAddress) (types.ProviderStats, uint32, error) {
	st, bps, _, err := k.fillRate(ctx, provider)
	return st, bps, err
}

func (k Keeper) fillRate(ctx context.Context, provider sdk.AccAddress) (types.ProviderStats, uint32, bool, error) {
	st, err := k.stats(ctx, provider)
	if err != nil {
		return st, 0, false, err
	}
	can, err := k.canTakeWork(ctx, provider)
	if err != nil {
		return st, 0, false, err
	}
	if !can {
		st.OfferedGpus = st.LeasedGpus
	}
	accrue(&st, sdk.UnwrapSDKContext(ctx).BlockTime())
	return st, FillRateBps(st), can, nil
}

// FillRateBps is leased / offered GPU-seconds in bps, rounded down; 0 when
// nothing was offered yet.
func FillRateBps(st types.ProviderStats) uint32 {
	if st.OfferedGpuSeconds == 0 {
		return 0
	}
	l, o := st.LeasedGpuSeconds, st.OfferedGpuSeconds
	l = min(l, o)
	// l × 10000 may pass 64 bits; with l ≤ o the 128-bit quotient fits in 64.
	hi, lo := bits.Mul64(l, 10000)
	q, _ := bits.Div64(hi, lo, o)
	return uint32(q)
}
