package daemon

import (
	"bytes"
	"time"

	"github.com/idlegpu/idlegpu/agent/proof"
)

// t0 and testLease are the sampler tests' clock and lease (the prover's
// tests have their own in agent/prover).
var t0 = time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)

func testLease() proof.Lease {
	return proof.Lease{ID: 3, GPUs: []string{"GPU-a", "GPU-b"}, Start: t0, DurationSeconds: 1200, EpochSeconds: 600,
		ImageDigest: "sha256:" + string(bytes.Repeat([]byte("cd"), 32))}
}
