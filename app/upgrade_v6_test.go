package app_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"cosmossdk.io/collections"

	sdk "github.com/cosmos/cosmos-sdk/types"
	upgradetypes "github.com/cosmos/cosmos-sdk/x/upgrade/types"

	"github.com/idlegpu/idlegpu/app/apptesting"
	v6 "github.com/idlegpu/idlegpu/app/upgrades/v6"
	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
)

// TestV6StartsStateRetention: a chain from before v6 (x/auction version 2:
// no retention params, ended jobs kept forever) runs the upgrade. The params
// gain their defaults, a job that had ended is retired as if it ended at the
// upgrade and is pruned record_retention_seconds later, not before; an OPEN
// job is untouched.
func TestV6StartsStateRetention(t *testing.T) {
	a, ctx, accs := upgradeChain(t)

	ap, err := a.AuctionKeeper.Params.Get(ctx)
	require.NoError(t, err)
	ap.RecordRetentionSeconds, ap.MaxRecordPrunesPerBlock = 0, 0 // version 2 had neither
	require.NoError(t, a.AuctionKeeper.Params.Set(ctx, ap))
	renter := accs[1].Address.String()
	spec := apptesting.TrainingJob(1, 1_000_000)
	for id, st := range map[uint64]auctiontypes.JobStatus{1: auctiontypes.JOB_STATUS_EXPIRED, 2: auctiontypes.JOB_STATUS_OPEN} {
		require.NoError(t, a.AuctionKeeper.Jobs.Set(ctx, id, auctiontypes.Job{
			Id: id, Renter: renter, Spec: spec, Deposit: sdk.NewInt64Coin(spec.MaxPrice.Denom, 1_000_000), Status: st, CreatedAt: ctx.BlockTime(),
		}))
		require.NoError(t, a.AuctionKeeper.RenterJobs.Set(ctx, collections.Join(accs[1].Address, id)))
	}
	require.NoError(t, a.AuctionKeeper.JobSeq.Set(ctx, 3))

	fromVM := a.ModuleManager.GetVersionMap()
	fromVM[auctiontypes.ModuleName] = 2
	toVM, err := v6.Upgrade.CreateHandler(a.ModuleManager, a.Configurator(), &a.Keepers)(ctx, upgradetypes.Plan{Name: v6.UpgradeName}, fromVM)
	require.NoError(t, err)
	require.EqualValues(t, 3, toVM[auctiontypes.ModuleName])

	ap, err = a.AuctionKeeper.Params.Get(ctx)
	require.NoError(t, err)
	require.Equal(t, auctiontypes.DefaultParams(), ap)
	ended, err := a.AuctionKeeper.Job(ctx, 1)
	require.NoError(t, err)
	pruneAt := ctx.BlockTime().Add(48 * time.Hour)
	require.Equal(t, pruneAt, ended.PruneAt)
	open, err := a.AuctionKeeper.Job(ctx, 2)
	require.NoError(t, err)
	require.True(t, open.PruneAt.IsZero())

	for _, at := range []struct {
		t    time.Time
		kept bool
	}{{pruneAt.Add(-time.Second), true}, {pruneAt, false}} {
		bctx := ctx.WithBlockTime(at.t)
		require.NoError(t, a.AuctionKeeper.EndBlocker(bctx))
		has, err := a.AuctionKeeper.Jobs.Has(bctx, 1)
		require.NoError(t, err)
		require.Equal(t, at.kept, has, "at %s", at.t)
	}
	has, err := a.AuctionKeeper.Jobs.Has(ctx, 2)
	require.NoError(t, err)
	require.True(t, has, "an OPEN job stays")
	_, err = a.AuctionKeeper.Job(ctx, 1)
	require.ErrorContains(t, err, "pruned")
}
