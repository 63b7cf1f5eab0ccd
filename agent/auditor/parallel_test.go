package auditor

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	settlementaudit "github.com/idlegpu/idlegpu/x/settlement/audit"
	settlementtypes "github.com/idlegpu/idlegpu/x/settlement/types"
)

// TestParallelTreeIsTheChainsTree: the tree hashed on all CPUs has the
// root the sequential one has, leaf counts below and above a chunk.
func TestParallelTreeIsTheChainsTree(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, leaves := range []int{2, 32, 1 << 17} {
		states := make(settlementaudit.States, leaves*settlementaudit.StateBytes)
		for i := range states {
			states[i] = byte(r.Uint32())
		}
		want := settlementtypes.NewAuditTranscript(states).Root()
		require.Equal(t, want, settlementtypes.NewAuditTranscriptWith(states, parallel).Root(), "%d leaves", leaves)
	}
}
