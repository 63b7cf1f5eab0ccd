package daemon

import (
	"maps"
	"slices"

	"github.com/idlegpu/idlegpu/agent/gpu"
)

// sampledGPUs are all the machine's GPUs: leased ones are proven, and every
// one feeds the metrics and the thermal limits. A backend that cannot see
// processes is first told the jobs'.
func (d *Daemon) sampledGPUs() []string {
	if a, ok := d.gpus.(gpu.JobAttacher); ok {
		a.AttachJobs(d.runningJobs())
	}
	return slices.Sorted(maps.Keys(d.devices))
}

// runningJobs are the processes of every job not ended and the GPUs of
// its lease (from its record once the chain lists it no more).
func (d *Daemon) runningJobs() []gpu.JobProcs {
	var out []gpu.JobProcs
	for _, l := range d.reg.snapshot() {
		if l.job == nil {
			continue
		}
		select {
		case <-l.job.Done():
			continue
		default:
		}
		gpus := l.chain.GpuUuids
		if !l.listed {
			rec, _ := d.records.Get(l.id)
			gpus = rec.GPUs
		}
		out = append(out, gpu.JobProcs{LeaseID: l.id, GPUs: gpus, PIDs: l.job.PIDs()})
	}
	return out
}
