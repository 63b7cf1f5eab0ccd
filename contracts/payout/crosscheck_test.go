package payout_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/scripts/npmtest"
)

// TestOpenZeppelinAgrees runs contracts/crosscheck.mjs on the committed
// vectors: OpenZeppelin's merkle-tree must give the same roots, proofs and
// dumps, and ethers the same checkpoints, digests and signatures. It
// installs the pinned packages and skips only as npmtest.Run does.
func TestOpenZeppelinAgrees(t *testing.T) {
	vectors, err := filepath.Abs(vectorsFile)
	require.NoError(t, err)
	out, err := npmtest.Run(t, "..", "OpenZeppelin merkle-tree cross-check", "crosscheck.mjs", vectors)
	require.NoError(t, err, "OpenZeppelin or ethers disagrees with the Go payout package:\n%s", out)
}
