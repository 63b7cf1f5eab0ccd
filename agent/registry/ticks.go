package registry

import "github.com/idlegpu/idlegpu/agent/gpu"

// SampleTick is one tick's readings by GPU.
type SampleTick struct {
	ByGPU map[string]gpu.Reading
}

// RecentTicks is the least number of ticks kept for backfill: the agent
// learns that a lease started from the block that started it, a block or
// two after its start time, and the job was on its GPUs all along. The
// ring keeps more when the params' epochs hold more ticks (setRecentBound),
// so that ticks taken while the node was unreachable reach the proofs.
const RecentTicks = 120
