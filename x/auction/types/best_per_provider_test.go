package types

import (
	"fmt"
	"math/rand"
	"testing"

	sdkmath "cosmossdk.io/math"
	"github.com/stretchr/testify/require"
)

// TestBestPerProviderBothWays: the scan (few candidates) and the map (many)
// keep exactly each provider's best-ranked candidate, in rank order.
func TestBestPerProviderBothWays(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	for _, n := range []int{1, 5, scanDedupe, scanDedupe + 1, 300} {
		cands := make([]Candidate, n)
		for i := range cands {
			cands[i] = Candidate{
				Provider: fmt.Appendf(nil, "provider-%02d", r.Intn(12)), OfferID: uint64(i + 1),
				Price: sdkmath.NewInt(int64(1_000_000 + r.Intn(2_000_000))), Reliability: uint32(9000 + r.Intn(1001)), Seq: StandingOfferSeq,
			}
		}
		got := bestPerProvider(cands)
		// The exhaustive answer: for each provider, its candidate no other of
		// its candidates beats; then rank those.
		best := map[string]Candidate{}
		for _, c := range cands {
			if b, ok := best[string(c.Provider)]; !ok || Better(c, b) {
				best[string(c.Provider)] = c
			}
		}
		require.Len(t, got, len(best), "n=%d", n)
		for i, c := range got {
			require.Equal(t, best[string(c.Provider)].OfferID, c.OfferID, "n=%d", n)
			if i > 0 {
				require.True(t, Better(got[i-1], c), "n=%d: rank order", n)
			}
		}
	}
}
