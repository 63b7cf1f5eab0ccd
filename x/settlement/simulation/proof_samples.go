package simulation

import (
	"context"
	"math/rand"
	"time"

	"github.com/idlegpu/idlegpu/x/settlement/types"
)

// honestProof builds c's proof as an honest agent would: each lease GPU
// sampled at the window's start and every sample interval after it, busy
// with one job, drawing between its model's idle and max power (so the
// energy lands in the range the chain accepts: at least half the window is
// covered), using at least half and at most all of its memory.
func honestProof(ctx context.Context, providers Providers, c proofCandidate, r *rand.Rand) (types.ExecutionProof, error) {
	interval := c.prog.SampleInterval()
	var samples []types.Sample
	for _, uuid := range c.lease.GpuUuids {
		gpu, err := providers.GPU(ctx, uuid)
		if err != nil {
			return types.ExecutionProof{}, err
		}
		model, known := c.prog.GPUModel(gpu.Model)
		memLimit := gpu.MemoryMib
		if known && model.MemoryMib > 0 {
			memLimit = min(memLimit, model.MemoryMib)
		}
		// A model without figures is judged on memory and presence alone.
		idleW, maxW := uint64(300), uint64(300)
		if known {
			idleW, maxW = uint64(model.IdleW), uint64(max(model.MaxW, model.IdleW))
		}
		energy := uint64(r.Int63n(1 << 40)) // the driver's counter, from any point
		mem := memLimit - uint64(r.Int63n(int64(memLimit/2)+1))
		for t := c.from; !t.After(c.to); t = t.Add(interval) {
			powerW := idleW + uint64(r.Int63n(int64(maxW-idleW)+1))
			samples = append(samples, types.Sample{
				GpuUuid: uuid, TimestampMs: t.UnixMilli(), UtilBps: uint32(5_000 + r.Intn(5_001)), MemUsedMib: mem,
				EnergyMj: energy, PowerMw: uint32(powerW * 1000), TempC: uint32(40 + r.Intn(45)),
				SmClockMhz: uint32(1_000 + r.Intn(1_000)), Procs: 1,
			})
			// The energy until the next sample, in mJ (W × ms).
			energy += powerW * uint64(interval/time.Millisecond)
		}
	}
	p, _, err := types.BuildProof(types.ProofInput{
		LeaseID: c.lease.Id, Epoch: c.prog.NextEpoch, WindowStart: c.from, WindowEnd: c.to,
		ChallengeHeight: c.challenge.Height, ChallengeHash: c.challenge.Hash,
		GPUs: c.lease.GpuUuids, Samples: samples, ImageDigest: simImageDigest, AgentVersion: "sim",
	})
	return p, err
}
