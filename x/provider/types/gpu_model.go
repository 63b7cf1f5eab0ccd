package types

import (
	"math"

	errorsmod "cosmossdk.io/errors"
)

// MemoryToleranceBps is how far above its model's table entry a GPU's
// memory may be: 1%. The table holds what NVML reports for the model
// (81559 MiB for an "NVIDIA H100 80GB HBM3", 143771 for an "NVIDIA H200");
// drivers and ECC settings move the figure by far less, and always below
// the board's physical memory, which is within 1% of it. Less memory than
// the table is accepted: ECC and reserved memory lower it, and reporting
// less only keeps the GPU from jobs that need more.
const MemoryToleranceBps = 100

// MaxMemoryMiB is the most memory a GPU of a model the table lists with
// tableMiB may register with: tableMiB plus MemoryToleranceBps of it,
// rounded down (saturating, so any table entry is safe).
func MaxMemoryMiB(tableMiB uint64) uint64 {
	extra := tableMiB/10_000*MemoryToleranceBps + tableMiB%10_000*MemoryToleranceBps/10_000
	if tableMiB > math.MaxUint64-extra {
		return math.MaxUint64
	}
	return tableMiB + extra
}

// CheckModelMemory checks a GPU against its model's entry in the GPU model
// table: the model must be listed (the table decides what proofs and audits
// can judge; a name it does not list would escape both) and the memory at
// most MaxMemoryMiB of the entry.
func CheckModelMemory(g GPUInfo, tableMiB uint64, known bool) error {
	if !known {
		return errorsmod.Wrapf(ErrUnknownGPUModel, "%s: model %q is not in the GPU model table", g.Uuid, g.Model)
	}
	if limit := MaxMemoryMiB(tableMiB); g.MemoryMib > limit {
		return errorsmod.Wrapf(ErrInvalidGPU, "%s: %d MiB for a %s; the table lists %d MiB, at most %d accepted",
			g.Uuid, g.MemoryMib, g.Model, tableMiB, limit)
	}
	return nil
}
