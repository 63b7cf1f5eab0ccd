// Package audit defines the audit workload, memwalk/v1: a memory-hard,
// bandwidth-bound walk over a seed-derived table sized to the claimed
// board (docs/design.md#audits). A device answers with the Merkle root of
// its transcript (one 32-byte lane state per segment); the chain then
// recomputes a few sampled segments itself, deriving each table item it
// needs from the seed's 1 MiB cache as an Ethash light client does, and
// judges the transcript with no trusted party.
//
// The workload is a specification first: every implementation (the CUDA
// kernels in the agent, the CPU reference here) must produce the same
// bytes, which the golden vectors in the tests pin down.
package audit

// Known lists the workloads the chain accepts.
var Known = []string{MemWalkV1Name}

// IsKnown reports whether the chain accepts a workload name.
func IsKnown(name string) bool {
	for _, k := range Known {
		if k == name {
			return true
		}
	}
	return false
}
