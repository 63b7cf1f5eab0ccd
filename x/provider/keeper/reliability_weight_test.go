package keeper_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/x/provider/keeper"
)

func TestWeightedReliability(t *testing.T) {
	for _, tc := range []struct {
		name                     string
		r, outcome, weight, want uint32
	}{
		{"full proven step is the EMA step", 9000, 10_000, 10_000, keeper.NextReliability(9000, 10_000)},
		{"full missed step is the EMA step", 9000, 0, 10_000, keeper.NextReliability(9000, 0)},
		{"half a proven step", 9000, 10_000, 5_000, 9000 + (keeper.NextReliability(9000, 10_000)-9000)/2},
		{"half a missed step", 9000, 0, 5_000, 9000 - (9000-keeper.NextReliability(9000, 0))/2},
		{"a weightless epoch moves nothing", 9000, 10_000, 0, 9000},
		{"a tiny payment rounds to no gain", 9000, 10_000, 10, 9000},
		{"weight above a step is one step", 9000, 10_000, 20_000, keeper.NextReliability(9000, 10_000)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, keeper.WeightedReliability(tc.r, tc.outcome, tc.weight))
		})
	}
}
