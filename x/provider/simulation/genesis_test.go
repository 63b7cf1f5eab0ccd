package simulation_test

import (
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/x/provider/simulation"
)

// The simulator must only ever generate params a chain would accept.
func TestRandomParamsAreValid(t *testing.T) {
	for seed := int64(0); seed < 2000; seed++ {
		p := simulation.RandomParams(rand.New(rand.NewSource(seed)), "ugpu")
		require.NoError(t, p.Validate(), "seed %d: %v", seed, p)
	}
}
