package daemon

import (
	"time"

	"github.com/idlegpu/idlegpu/agent/gpu"
	"github.com/idlegpu/idlegpu/agent/proof"
	"github.com/idlegpu/idlegpu/agent/registry"
	"github.com/idlegpu/idlegpu/agent/runner"
	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
	settlementtypes "github.com/idlegpu/idlegpu/x/settlement/types"
)

// onSample takes one tick's readings: metrics, limits, and the samples of
// every ACTIVE lease the agent runs a job for. The samples are decided
// under the registry's lock and written after it is released.
func (d *Daemon) onSample(tick time.Time, rs []gpu.Reading) {
	d.health.sampled(tick)
	if len(rs) < len(d.devices) {
		d.m.SamplesDropped.Add(float64(len(d.devices) - len(rs)))
	}
	byGPU := make(map[string]gpu.Reading, len(rs))
	for _, r := range rs {
		byGPU[r.UUID] = r
		d.m.ObserveGPU(r.UUID, d.devices[r.UUID], r)
	}

	for _, r := range rs {
		if !d.limits.Observe(r.UUID, r.TempC, r.PowerMW) {
			continue
		}
		// A limit held for preempt_after samples: BRONZE work on that GPU goes.
		if d.reg.QueuePreempt(r.UUID, "GPU "+r.UUID+" over the thermal or power limit") {
			d.poke()
		}
	}
	// The jobs' processes are listed before the lock is taken.
	procs := d.jobProcs()
	writes := d.reg.AddTick(registry.SampleTick{ByGPU: byGPU}, func(l *registry.Lease) []settlementtypes.Sample {
		return tickSamples(l, procs.of(l), byGPU)
	})
	for _, w := range writes {
		d.writeSamples(w.ID, w.Samples)
	}
}

// writeSamples logs a lease's samples durably. The caller holds no lock:
// the sample logs serialise their own writes.
func (d *Daemon) writeSamples(id uint64, samples []settlementtypes.Sample) {
	if len(samples) == 0 {
		return
	}
	if err := d.samples.Record(id, samples); err != nil {
		d.log.Error("samples not recorded", "lease", id, "err", err)
	}
}

// sampleWriter is where leases' samples go: the prover's durable logs.
type sampleWriter interface {
	Record(leaseID uint64, samples []settlementtypes.Sample) error
}

// jobPIDs are the processes of the jobs, by lease, listed outside the
// registry's lock (a runner may read /proc or ask docker).
type jobPIDs map[uint64]map[uint32]bool

func (d *Daemon) jobProcs() jobPIDs {
	out := jobPIDs{}
	for _, l := range d.reg.Snapshot() {
		if l.Tracked && l.Job != nil && l.Active() { // those addTick asks for
			out[l.ID] = pidSet(l.Job)
		}
	}
	return out
}

// of is the lease's job's processes; a job set or tracked since they were
// listed is asked now.
func (p jobPIDs) of(l *registry.Lease) map[uint32]bool {
	if pids, ok := p[l.ID]; ok {
		return pids
	}
	return pidSet(l.Job)
}

func pidSet(job runner.Job) map[uint32]bool {
	pids := map[uint32]bool{}
	for _, p := range job.PIDs() {
		pids[p] = true
	}
	return pids
}

// tickSamples are a lease's samples of one tick (procs counts the job's
// processes on each GPU), or none while the job has not reached all its
// GPUs. The caller holds the registry's lock.
func tickSamples(l *registry.Lease, pids map[uint32]bool, byGPU map[string]gpu.Reading) []settlementtypes.Sample {
	samples := make([]settlementtypes.Sample, 0, len(l.Chain.GpuUuids))
	for _, g := range l.Chain.GpuUuids {
		if r, ok := byGPU[g]; ok {
			samples = append(samples, proof.ToSample(r, func(pid uint32) bool { return pids[pid] }))
		}
	}
	if len(samples) == 0 {
		return nil
	}
	if !l.OnGPUs {
		// A job needs a moment to reach its GPUs (a container starting, a
		// CUDA context): ticks before its processes show on every leased
		// GPU are not its work and stay out of the proof, within the
		// chain's min_samples_ratio. From then on every tick is recorded.
		for _, s := range samples {
			if s.Procs == 0 {
				return nil
			}
		}
		l.OnGPUs = true
	}
	return samples
}

// startTracking marks a newly tracked lease tracked and records the kept
// ticks, taken before the agent saw it ACTIVE (without them its first
// epoch would be a sample or two short), in one write. The registry
// decides which ticks are backfilled and which are recorded live in one
// critical section, so no tick is recorded twice or lost; readings from
// before the lease's start are dropped by the prover.
func (d *Daemon) startTracking(cl auctiontypes.Lease) {
	job := d.reg.Job(cl.Id)
	var pids map[uint32]bool
	if job != nil {
		pids = pidSet(job)
	}
	samples := d.reg.Track(cl.Id, func(l *registry.Lease, kept []registry.SampleTick) []settlementtypes.Sample {
		if l.Job == nil {
			return nil
		}
		if pids == nil { // a job set since
			pids = pidSet(l.Job)
		}
		// The lease as this step saw it on chain.
		st := *l
		st.Chain = cl
		var out []settlementtypes.Sample
		for _, t := range kept {
			out = append(out, tickSamples(&st, pids, t.ByGPU)...)
		}
		l.OnGPUs = st.OnGPUs
		return out
	})
	d.writeSamples(cl.Id, samples)
}
