package web

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/app/apptesting"
	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
)

// TestPendingLeaseShowsItsStartDeadline: a lease the provider has not
// started yet says by when it must, and what happens if it does not; it
// shows no epoch line (no epoch has begun), where it once said "epoch 0s;
// next due —".
func TestPendingLeaseShowsItsStartDeadline(t *testing.T) {
	var lease auctiontypes.Lease
	f := newFixtureOn(t, t.TempDir()+"/index.db", 2, 2, 0, 0, func(m apptesting.Market, f *fixture) {
		spec := apptesting.TrainingJob(1, 2_000_000)
		spec.Tier, spec.Preemptible = auctiontypes.TIER_BRONZE, true
		spec.DurationSeconds = 3600
		m.PostJob(f.renters[0], spec)
		require.NoError(t, m.App.AuctionKeeper.EndBlocker(m.Ctx))
		var err error
		lease, err = m.App.AuctionKeeper.Leases.Get(m.Ctx, 1)
		require.NoError(t, err)
	})
	require.Equal(t, auctiontypes.LEASE_STATUS_PENDING, lease.Status)
	require.False(t, lease.StartDeadline.IsZero())

	code, body := f.get(t, "/leases/1")
	require.Equal(t, http.StatusOK, code, body)
	require.Contains(t, body, `<dd id="lease-start">not yet: the provider must start it by `+When(lease.StartDeadline)+
		`, or the lease ends unstarted (expired) and its escrow goes back to the renter in full</dd>`)
	require.NotContains(t, body, `id="progress"`)
	require.NotContains(t, body, "next due")

	// An ended lease known only to the index has no progress on the node:
	// no "0 proven … epoch 0s" line contradicting its proven epoch.
	f = newFixture(t, 2, 2, 3)
	code, body = f.get(t, "/leases/2")
	require.Equal(t, http.StatusOK, code, body)
	require.Contains(t, body, `<span class="badge proven">proven</span>`)
	require.NotContains(t, body, `id="progress"`)
}
