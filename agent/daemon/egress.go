package daemon

import (
	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
	offertypes "github.com/idlegpu/idlegpu/x/offer/types"
)

// egressPerGPU is the internet egress per GPU this agent publishes and
// gives: the docker runner's egress_mbps_per_gpu. The process runner cannot
// confine a job's network, so it states none.
func (d *Daemon) egressPerGPU() uint32 {
	if d.cfg.Runner.Backend != "docker" {
		return 0
	}
	return d.cfg.Runner.EgressMbpsPerGPU
}

// leaseEgressMbps is the egress a lease's job runs with, all its GPUs
// together (the chain's rule, offertypes.LeaseEgressMbps): none unless the
// job asked for network.
func (d *Daemon) leaseEgressMbps(l auctiontypes.Lease, job auctiontypes.Job) uint32 {
	return offertypes.LeaseEgressMbps(d.egressPerGPU(), job.Spec.MinEgressMbpsPerGpu, uint32(len(l.GpuUuids)))
}
