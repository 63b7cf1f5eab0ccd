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
	for _, l := range d.reg.Snapshot() {
		if l.Job == nil {
			continue
		}
		select {
		case <-l.Job.Done():
			continue
		default:
		}
		gpus := l.Chain.GpuUuids
		if !l.Listed {
			rec, _ := d.records.Get(l.ID)
			gpus = rec.GPUs
		}
		out = append(out, gpu.JobProcs{LeaseID: l.ID, GPUs: gpus, PIDs: l.Job.PIDs()})
	}
	return out
}
