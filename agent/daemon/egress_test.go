package daemon

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/agent/config"
	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
)

// TestLeaseEgress: a job runs with the network only when it asked for it,
// then at the published rate per GPU × its GPUs; the process runner, which
// cannot confine a job's network, publishes and gives none.
func TestLeaseEgress(t *testing.T) {
	d := testDaemon(t, config.Default("").Policy)
	d.cfg.Runner = config.Runner{Backend: "docker", EgressMbpsPerGPU: 500}
	twoGPUs := auctiontypes.Lease{Id: 1, GpuUuids: []string{"GPU-a", "GPU-b"}}
	job := func(minEgress uint32) auctiontypes.Job {
		return auctiontypes.Job{Spec: auctiontypes.JobSpec{MinEgressMbpsPerGpu: minEgress}}
	}

	require.Equal(t, uint32(500), d.egressPerGPU())
	require.Zero(t, d.leaseEgressMbps(twoGPUs, job(0)), "a job that needs no network runs with none")
	require.Equal(t, uint32(1000), d.leaseEgressMbps(twoGPUs, job(1)), "the offer's rate per GPU, not the job's minimum")
	require.Equal(t, uint32(1000), d.leaseEgressMbps(twoGPUs, job(500)))

	d.cfg.Runner.Backend = "process"
	require.Zero(t, d.egressPerGPU())
	require.Zero(t, d.leaseEgressMbps(twoGPUs, job(1)))
}
