package daemon

import (
	"encoding/json"
	"errors"
	"maps"
	"os"
	"slices"
	"time"

	"github.com/idlegpu/idlegpu/agent/gpu"
	"github.com/idlegpu/idlegpu/agent/proof"
	"github.com/idlegpu/idlegpu/agent/runner"
	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
	settlementtypes "github.com/idlegpu/idlegpu/x/settlement/types"
)

// sampledGPUs are all the machine's GPUs: leased ones are proven, and every
// one feeds the metrics and the thermal limits.
func (d *Daemon) sampledGPUs() []string {
	d.syncSim()
	return slices.Sorted(maps.Keys(d.devices))
}

// onSample takes one tick's readings: metrics, limits, and the samples of
// every ACTIVE lease the agent runs a job for.
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

	d.mu.Lock()
	defer d.mu.Unlock()
	for _, r := range rs {
		if !d.limits.Observe(r.UUID, r.TempC, r.PowerMW) {
			continue
		}
		// A limit held for preempt_after samples: BRONZE work on that GPU goes.
		for _, l := range d.leases {
			if l.Tier == auctiontypes.TIER_BRONZE && l.Status == auctiontypes.LEASE_STATUS_ACTIVE && slices.Contains(l.GpuUuids, r.UUID) {
				if _, queued := d.preempt[l.Id]; !queued {
					d.preempt[l.Id] = "GPU " + r.UUID + " over the thermal or power limit"
					d.poke()
				}
			}
		}
	}
	d.recent = append(d.recent, sampleTick{byGPU: byGPU})
	if n := d.recentBound(); len(d.recent) > n {
		d.recent = slices.Delete(d.recent, 0, len(d.recent)-n)
	}
	for id, l := range d.leases {
		job := d.jobs[id]
		if !d.tracked[id] || job == nil || l.Status != auctiontypes.LEASE_STATUS_ACTIVE {
			continue
		}
		d.record(l, job, byGPU)
	}
}

// sampleTick is one tick's readings by GPU.
type sampleTick struct {
	byGPU map[string]gpu.Reading
}

// recentTicks is the least number of ticks kept for backfill: the agent
// learns that a lease started from the block that started it, a block or
// two after its start time, and the job was on its GPUs all along. The
// ring keeps more when the params' epochs hold more ticks (setRecentBound),
// so that ticks taken while the node was unreachable reach the proofs.
const recentTicks = 120

// record logs a lease's samples of one tick. The caller holds d.mu.
func (d *Daemon) record(l auctiontypes.Lease, job runner.Job, byGPU map[string]gpu.Reading) {
	if samples := d.tickSamples(l, jobPIDs(job), byGPU); len(samples) > 0 {
		if err := d.prover.Record(l.Id, samples); err != nil {
			d.log.Error("samples not recorded", "lease", l.Id, "err", err)
		}
	}
}

func jobPIDs(job runner.Job) map[uint32]bool {
	pids := map[uint32]bool{}
	for _, p := range job.PIDs() {
		pids[p] = true
	}
	return pids
}

// tickSamples are a lease's samples of one tick (procs counts the job's
// processes on each GPU), or none while the job has not reached all its
// GPUs. The caller holds d.mu.
func (d *Daemon) tickSamples(l auctiontypes.Lease, pids map[uint32]bool, byGPU map[string]gpu.Reading) []settlementtypes.Sample {
	samples := make([]settlementtypes.Sample, 0, len(l.GpuUuids))
	for _, g := range l.GpuUuids {
		if r, ok := byGPU[g]; ok {
			samples = append(samples, proof.ToSample(r, func(pid uint32) bool { return pids[pid] }))
		}
	}
	if len(samples) == 0 {
		return nil
	}
	if !d.onGPUs[l.Id] {
		// A job needs a moment to reach its GPUs (a container starting, a
		// CUDA context): ticks before its processes show on every leased
		// GPU are not its work and stay out of the proof, within the
		// chain's min_samples_ratio. From then on every tick is recorded.
		for _, s := range samples {
			if s.Procs == 0 {
				return nil
			}
		}
		d.onGPUs[l.Id] = true
	}
	return samples
}

// backfill records the kept ticks of a newly tracked lease, taken before
// the agent saw it ACTIVE (without them its first epoch would be a sample
// or two short), in one write. The caller holds d.mu and marks the lease
// tracked in the same critical section, so no tick is recorded twice or
// lost.
func (d *Daemon) backfill(l auctiontypes.Lease) {
	job := d.jobs[l.Id]
	if job == nil {
		return
	}
	pids := jobPIDs(job)
	var samples []settlementtypes.Sample
	for _, t := range d.recent {
		samples = append(samples, d.tickSamples(l, pids, t.byGPU)...)
	}
	if len(samples) == 0 {
		return
	}
	// Readings from before the lease's start are dropped by the prover.
	if err := d.prover.Record(l.Id, samples); err != nil {
		d.log.Error("samples not recorded", "lease", l.Id, "err", err)
	}
}

// simulated is what the sim backend offers beyond gpu.Backend: processes
// put on GPUs and a temperature knob.
type simulated interface {
	Attach(uuid string, pid uint32) error
	Detach(uuid string, pid uint32) error
	SetTemperatureOverride(uuid string, c uint32) error
}

// syncSim mirrors the jobs' processes onto the simulated GPUs they lease,
// as a real driver would list them, and applies the sim control file. It
// runs before each tick's reads.
func (d *Daemon) syncSim() {
	sim, ok := d.gpus.(simulated)
	if !ok {
		return
	}
	d.mu.Lock()
	want := map[uint64]map[uint32][]string{}
	for id, job := range d.jobs {
		l, live := d.leases[id]
		rec, _ := d.records.Get(id)
		gpus := rec.GPUs
		if live {
			gpus = l.GpuUuids
		}
		select {
		case <-job.Done():
			continue
		default:
		}
		m := map[uint32][]string{}
		for _, p := range job.PIDs() {
			m[p] = gpus
		}
		want[id] = m
	}
	for id, had := range d.attached {
		for pid, gpus := range had {
			if _, keep := want[id][pid]; keep {
				continue
			}
			for _, g := range gpus {
				_ = sim.Detach(g, pid)
			}
			delete(had, pid)
		}
		if len(had) == 0 {
			delete(d.attached, id)
		}
	}
	for id, m := range want {
		for pid, gpus := range m {
			if _, done := d.attached[id][pid]; done {
				continue
			}
			for _, g := range gpus {
				if err := sim.Attach(g, pid); err != nil {
					d.log.Debug("sim attach", "gpu", g, "pid", pid, "err", err)
				}
			}
			if d.attached[id] == nil {
				d.attached[id] = map[uint32][]string{}
			}
			d.attached[id][pid] = gpus
		}
	}
	d.mu.Unlock()

	if path := d.cfg.GPU.SimControl; path != "" {
		var ctl map[string]struct {
			TempC uint32 `json:"temp_c"`
		}
		b, err := os.ReadFile(path)
		switch {
		case errors.Is(err, os.ErrNotExist): // no file: every override cleared
		case err != nil:
			d.log.Warn("sim control file", "path", path, "err", err)
			return
		default:
			if err := json.Unmarshal(b, &ctl); err != nil {
				d.log.Warn("sim control file", "path", path, "err", err)
				return
			}
		}
		for uuid := range d.devices {
			_ = sim.SetTemperatureOverride(uuid, ctl[uuid].TempC)
		}
	}
}
