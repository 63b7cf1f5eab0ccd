package daemon

import (
	"errors"
	"fmt"
	"time"

	"github.com/idlegpu/idlegpu/agent/policy"
	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
	offertypes "github.com/idlegpu/idlegpu/x/offer/types"
)

// acceptable applies the policy to a lease's job: workloads, images,
// duration, egress, and the thermal state of the GPUs.
func (d *Daemon) acceptable(l auctiontypes.Lease, job auctiontypes.Job) error {
	for _, g := range l.GpuUuids {
		if _, ok := d.devices[g]; !ok {
			return fmt.Errorf("GPU %s is not on this machine", g)
		}
		if d.auditor.Holds(g) {
			return fmt.Errorf("GPU %s is running an audit", g)
		}
	}
	if d.limits.Hot() {
		return errors.New("GPUs are over the thermal or power limit")
	}
	if err := d.gate.refusal(); err != nil {
		return err
	}
	if err := policy.AcceptsEgress(d.egressPerGPU(), job.Spec.MinEgressMbpsPerGpu); err != nil {
		return err
	}
	if err := d.acceptsIngress(job); err != nil {
		return err
	}
	model := ""
	if len(l.GpuUuids) > 0 {
		model = d.devices[l.GpuUuids[0]].Model
	}
	return policy.Accepts(d.cfg.Policy, policy.Job{
		Workload: workloadName(job.Spec.Workload), Image: job.Spec.Image, Model: model,
		Duration: time.Duration(l.DurationSeconds) * time.Second,
	})
}

// workloadName maps the chain's workload to the policy's names.
func workloadName(w offertypes.Workload) string {
	switch w {
	case offertypes.WORKLOAD_INFERENCE:
		return "inference"
	case offertypes.WORKLOAD_TRAINING:
		return "training"
	case offertypes.WORKLOAD_BATCH:
		return "batch"
	case offertypes.WORKLOAD_RENDER:
		return "render"
	}
	return w.String()
}
