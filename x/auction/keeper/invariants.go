package keeper

import (
	"context"
	"fmt"

	"cosmossdk.io/collections"

	sdk "github.com/cosmos/cosmos-sdk/types"
	authtypes "github.com/cosmos/cosmos-sdk/x/auth/types"

	"github.com/idlegpu/idlegpu/x/auction/types"
	"github.com/idlegpu/idlegpu/x/internal/collutil"
)

// Invariant is one accounting rule of the module: Check returns what is
// broken, or nil.
type Invariant struct {
	Name  string
	Check func(context.Context) error
}

// Invariants are the module's accounting rules; tests and the simulator run
// them after state changes. Each walks the whole state: never in a block.
func (k Keeper) Invariants() []Invariant {
	return []Invariant{
		{"escrow-backed", k.EscrowInvariant},
		{"leases-consistent", k.LeasesInvariant},
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

// EscrowInvariant: per denom, the escrow account holds exactly the deposits
// of OPEN jobs plus the unpaid escrow of live leases.
func (k Keeper) EscrowInvariant(ctx context.Context) error {
	want := sdk.NewCoins()
	jobs, err := collutil.Values(ctx, k.Jobs)
	if err != nil {
		return err
	}
	for _, j := range jobs {
		if j.Status == types.JOB_STATUS_OPEN {
			want = want.Add(j.Deposit)
		}
	}
	leases, err := collutil.Values(ctx, k.Leases)
	if err != nil {
		return err
	}
	for _, l := range leases {
		if live(l) {
			want = want.Add(l.Escrow.Sub(l.Paid))
		}
	}
	if got := k.bank.GetAllBalances(ctx, authtypes.NewModuleAddress(types.EscrowAccount)); !got.Equal(want) {
		return fmt.Errorf("escrow holds %s, open jobs and live leases need %s", got, want)
	}
	return nil
}

// LeasesInvariant: each job's open_leases equals its live leases and its
// bids count its stored bids, every lease is listed by its job, and nothing
// is paid beyond its escrow.
func (k Keeper) LeasesInvariant(ctx context.Context) error {
	leases, err := collutil.Values(ctx, k.Leases)
	if err != nil {
		return err
	}
	open := map[uint64]uint32{}
	for _, l := range leases {
		if l.Paid.Amount.GT(l.Escrow.Amount) {
			return fmt.Errorf("lease %d paid %s of its escrow %s", l.Id, l.Paid, l.Escrow)
		}
		job, err := k.Job(ctx, l.JobId)
		if err != nil {
			return fmt.Errorf("lease %d: %w", l.Id, err)
		}
		listed := false
		for _, id := range job.LeaseIds {
			listed = listed || id == l.Id
		}
		if !listed {
			return fmt.Errorf("lease %d is not listed by job %d", l.Id, job.Id)
		}
		if live(l) {
			open[l.JobId]++
		}
		provider, err := k.storedAddress(l.Provider)
		if err != nil {
			return err
		}
		indexed, err := k.LiveLeases.Has(ctx, collections.Join(provider, l.Id))
		if err != nil {
			return err
		}
		if indexed != live(l) {
			return fmt.Errorf("lease %d (%s): in the live index %t", l.Id, l.Status, indexed)
		}
	}
	jobs, err := collutil.Values(ctx, k.Jobs)
	if err != nil {
		return err
	}
	bids, err := collutil.Values(ctx, k.Bids)
	if err != nil {
		return err
	}
	bidCount := map[uint64]uint32{}
	for _, b := range bids {
		bidCount[b.JobId]++
	}
	for _, j := range jobs {
		if j.OpenLeases != open[j.Id] {
			return fmt.Errorf("job %d counts %d open leases, %d are live", j.Id, j.OpenLeases, open[j.Id])
		}
		if j.Bids != bidCount[j.Id] {
			return fmt.Errorf("job %d counts %d bids, the store holds %d", j.Id, j.Bids, bidCount[j.Id])
		}
	}
	return nil
}
