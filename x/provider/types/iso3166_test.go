package types

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestISO3166List(t *testing.T) {
	require.Len(t, iso3166Alpha2, 249, "ISO 3166-1 assigns 249 alpha-2 codes")
	require.True(t, slices.IsSorted(iso3166Alpha2), "binary search needs a sorted list")
	require.Len(t, slices.Compact(slices.Clone(iso3166Alpha2)), 249, "no duplicates")
	for _, c := range iso3166Alpha2 {
		require.Len(t, c, 2)
	}
}
