package main

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"github.com/stretchr/testify/require"

	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
	offertypes "github.com/idlegpu/idlegpu/x/offer/types"
	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
)

// The start sweep's jobs must be valid, pin the manifest the renter sends,
// and fit only the agents: their region is not the bench providers'.
func TestStartJobsFitOnlyTheAgents(t *testing.T) {
	spec := startSpec()
	require.NoError(t, spec.ValidateBasic())
	require.NoError(t, spec.Validate(auctiontypes.DefaultParams()))
	sum := sha256.Sum256(startManifest)
	require.Equal(t, hex.EncodeToString(sum[:]), spec.ManifestHash)
	require.Equal(t, uint32(0), spec.BidWindowBlocks, "cleared in the posting block")

	require.NoError(t, providertypes.ValidateRegion(startRegion))
	q := offertypes.CandidateQuery{Regions: spec.Regions}
	require.True(t, q.RegionAccepted(startRegion), "the agents' offers")
	require.False(t, q.RegionAccepted("eu-de"), "the bench providers' offers")
	require.True(t, startFloor.IsLT(startJobMax), "the agents' preemptible floor is under the jobs' cap")
	require.True(t, startJobMax.IsLT(bidFloor), "the bench providers' free bid offers are dearer than the jobs' cap")
}

// The report's p99 is the nearest rank, and the summary counts failures.
func TestStartSummary(t *testing.T) {
	s := &startResult{bidRate: 600, failures: []string{"x"}, probes: []StartProbe{
		{Lease: 1, Leased: 1, Running: 3, Load: 550}, {Lease: 2, Leased: 1.5, Running: 2, Load: 300}, {Lease: 3, Running: 1, Load: 299}}}
	require.Equal(t, []float64{2, 3}, s.running(), "lease 3 fell in a pause of the load")
	require.Equal(t, "2 jobs under load: p50 2.00 s, p95 3.00 s, max 3.00 s; 1 failed", s.summary())
	require.Equal(t, "no job started under load; 0 failed", (&startResult{}).summary())
}
