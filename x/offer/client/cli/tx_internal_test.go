package cli

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/x/offer/types"
)

func TestOpenWindowsDropsEndedOnes(t *testing.T) {
	now := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	ended := types.Window{Start: now.Add(-2 * time.Hour), End: now.Add(-time.Hour)}
	endingNow := types.Window{Start: now.Add(-time.Hour), End: now}
	running := types.Window{Start: now.Add(-time.Hour), End: now.Add(time.Hour)}
	later := types.Window{Start: now.Add(2 * time.Hour), End: now.Add(3 * time.Hour)}
	require.Equal(t, []types.Window{running, later}, openWindows([]types.Window{ended, endingNow, running, later}, now))
	require.Nil(t, openWindows([]types.Window{ended}, now))
}

func TestPricedLanes(t *testing.T) {
	p, err := ParsePrice("5uusdc")
	require.NoError(t, err)
	require.Equal(t, uint32(types.LANE_ON_DEMAND), pricedLanes(types.OfferTerms{PriceOnDemand: p}, 0))
	require.Equal(t, types.AllLanes, pricedLanes(types.OfferTerms{PriceOnDemand: p, PricePreemptible: p}, uint32(types.LANE_RESERVED)))
}
