package keeper

import (
	"context"
	"fmt"

	"cosmossdk.io/math"

	"github.com/idlegpu/idlegpu/x/bridge/types"
)

// Invariant is one accounting rule of the module: Check returns what is
// broken, or nil.
type Invariant struct {
	Name  string
	Check func(context.Context) error
}

// Invariants are the bridge's books; tests run them after state changes.
// Each walks the whole state: never in a block.
func (k Keeper) Invariants() []Invariant {
	return []Invariant{
		{"supply-is-backed", k.SupplyInvariant},
		{"cumulative-sums-to-withdrawn", k.CumulativeInvariant},
		{"roots-never-decrease", k.RootsInvariant},
		{"unbacked-per-holder", k.UnbackedInvariant},
	}
}

// CheckInvariants runs every invariant and returns the first broken one.
func (k Keeper) CheckInvariants(ctx context.Context) error {
	for _, inv := range k.Invariants() {
		if err := inv.Check(ctx); err != nil {
			return fmt.Errorf("%s/%s invariant broken: %w", types.ModuleName, inv.Name, err)
		}
	}
	return nil
}

// SupplyInvariant: the bridged denom's supply is exactly what genesis said
// it pre-minted plus credited deposits minus withdrawals, and withdrawals
// never pass deposits.
func (k Keeper) SupplyInvariant(ctx context.Context) error {
	p, err := k.Params.Get(ctx)
	if err != nil {
		return err
	}
	t, err := k.Totals.Get(ctx)
	if err != nil {
		return err
	}
	want := t.Unbacked.Add(t.Deposited).Sub(t.Withdrawn)
	if got := k.bank.GetSupply(ctx, p.Denom).Amount; !got.Equal(want) {
		return fmt.Errorf("supply of %s is %s, books say %s + %s − %s = %s", p.Denom, got, t.Unbacked, t.Deposited, t.Withdrawn, want)
	}
	if t.Withdrawn.GT(t.Deposited) {
		return fmt.Errorf("withdrawn %s above deposited %s", t.Withdrawn, t.Deposited)
	}
	return nil
}

// CumulativeInvariant: the recipients' totals sum to everything withdrawn
// and their count is the one withdrawals check against.
func (k Keeper) CumulativeInvariant(ctx context.Context) error {
	t, err := k.Totals.Get(ctx)
	if err != nil {
		return err
	}
	p, err := k.Progress.Get(ctx)
	if err != nil {
		return err
	}
	it, err := k.Cumulative.Iterate(ctx, nil)
	if err != nil {
		return err
	}
	vals, err := it.Values()
	if err != nil {
		return err
	}
	sum := math.ZeroInt()
	for _, v := range vals {
		sum = sum.Add(v)
	}
	if !sum.Equal(t.Withdrawn) || uint32(len(vals)) != p.Recipients {
		return fmt.Errorf("%d recipients sum to %s; books say %d and %s", len(vals), sum, p.Recipients, t.Withdrawn)
	}
	return nil
}

// RootsInvariant: kept roots' totals never decrease with the epoch and never
// exceed deposits.
func (k Keeper) RootsInvariant(ctx context.Context) error {
	t, err := k.Totals.Get(ctx)
	if err != nil {
		return err
	}
	it, err := k.Roots.Iterate(ctx, nil)
	if err != nil {
		return err
	}
	roots, err := it.Values()
	if err != nil {
		return err
	}
	prev := math.ZeroInt()
	for _, r := range roots {
		if r.TotalCumulative.LT(prev) || r.TotalCumulative.GT(t.Deposited) {
			return fmt.Errorf("root %d total %s after %s (deposited %s)", r.Epoch, r.TotalCumulative, prev, t.Deposited)
		}
		prev = r.TotalCumulative
	}
	return nil
}

// UnbackedInvariant: every unbacked mark is positive and at most its
// holder's balance, and the marks sum to totals.unbacked. With
// supply-is-backed, what all holders may withdraw sums to exactly
// deposited − withdrawn.
func (k Keeper) UnbackedInvariant(ctx context.Context) error {
	p, err := k.Params.Get(ctx)
	if err != nil {
		return err
	}
	t, err := k.Totals.Get(ctx)
	if err != nil {
		return err
	}
	marks, err := keyValues(ctx, k.Unbacked)
	if err != nil {
		return err
	}
	sum := math.ZeroInt()
	for _, kv := range marks {
		bal := k.bank.GetBalance(ctx, kv.Key, p.Denom).Amount
		if !kv.Value.IsPositive() || kv.Value.GT(bal) {
			return fmt.Errorf("%s: unbacked %s, balance %s", kv.Key, kv.Value, bal)
		}
		sum = sum.Add(kv.Value)
	}
	if !sum.Equal(t.Unbacked) {
		return fmt.Errorf("%d unbacked marks sum to %s, totals.unbacked is %s", len(marks), sum, t.Unbacked)
	}
	return nil
}
