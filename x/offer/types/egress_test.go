package types_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/x/offer/types"
)

func TestEgressFits(t *testing.T) {
	for _, tc := range []struct {
		offered, required uint32
		want              bool
	}{
		{0, 0, true},      // no network offered, none needed
		{100, 0, true},    // a job that needs none fits any offer
		{0, 1, false},     // a job that needs the network never fits a no-network offer
		{100, 100, true},  // exactly enough
		{100, 101, false}, // one short
		{types.MaxEgressMbpsPerGPU, types.MaxEgressMbpsPerGPU, true},
	} {
		require.Equal(t, tc.want, types.EgressFits(tc.offered, tc.required), "offered %d, required %d", tc.offered, tc.required)
		require.Equal(t, tc.want, types.OfferTerms{EgressMbpsPerGpu: tc.offered}.GivesEgress(tc.required))
	}
}

func TestLeaseEgressMbps(t *testing.T) {
	for _, tc := range []struct {
		name                          string
		offered, required, gpus, want uint32
	}{
		{"a job that needs none runs with none", 1000, 0, 4, 0},
		{"the offer's rate per leased GPU, not the job's minimum", 1000, 10, 4, 4000},
		{"one GPU", 250, 250, 1, 250},
		{"the bound on the largest lease fits", types.MaxEgressMbpsPerGPU, 1, 64, 6_400_000},
		{"saturates instead of wrapping", math.MaxUint32, 1, 2, math.MaxUint32},
	} {
		require.Equal(t, tc.want, types.LeaseEgressMbps(tc.offered, tc.required, tc.gpus), tc.name)
	}
}
