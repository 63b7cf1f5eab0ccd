package daemon

import (
	"maps"
	"slices"

	"github.com/idlegpu/idlegpu/agent/auditor"
)

// newAuditor builds the daemon's auditor once the GPUs and the chain's
// params are known: this machine's GPUs, the runner (the CPU reference
// for simulated GPUs), the chain client to send through, and what the
// daemon knows that the auditor asks (leases here, the chain's time). A
// pass makes the offers due.
func (d *Daemon) newAuditor() *auditor.Auditor {
	return auditor.New(auditor.Config{
		Provider: d.provider, Signer: d.signer,
		GPUs:   slices.Sorted(maps.Keys(d.devices)),
		Runner: d.auditRunner, Simulated: d.gpus.Name() == "sim",
		Validity: d.params.Settlement.AuditValidity(),
		Queries:  d.q, Chain: d.chain,
		Busy: d.gpuBusy, Now: d.health.chainNow,
		Metrics: d.m, Log: d.log.With("part", "auditor"),
		Publish: func(states []auditor.AuditState) { d.health.update(func(s *HealthState) { s.Audits = states }) },
		Passed: func(string) {
			d.offersDue.Store(true)
			d.poke()
		},
	})
}

// gpuBusy says whether a lease on this machine holds the GPU (listed by
// the chain, or its job still here).
func (d *Daemon) gpuBusy(uuid string) bool {
	for _, l := range d.reg.Snapshot() {
		if (l.Listed || l.Job != nil) && slices.Contains(l.Chain.GpuUuids, uuid) {
			return true
		}
	}
	return false
}
