package cli

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/x/auction/types"
)

func TestMinimaFlagsSetResourcesAndEgress(t *testing.T) {
	cmd := PostJobCmd()
	require.NoError(t, cmd.Flags().Parse([]string{"--min-cpu-cores-per-gpu", "8", "--min-host-memory-mib-per-gpu", "65536",
		"--min-disk-gib-per-gpu", "200", "--min-egress-mbps-per-gpu", "1000"}))
	var spec types.JobSpec
	minimaFromFlags(cmd.Flags(), &spec)
	require.Equal(t, types.JobSpec{MinCpuCoresPerGpu: 8, MinHostMemoryMibPerGpu: 65536, MinDiskGibPerGpu: 200, MinEgressMbpsPerGpu: 1000}, spec)

	cmd = SignJobCmd()
	require.NoError(t, cmd.Flags().Parse(nil))
	spec = types.JobSpec{}
	minimaFromFlags(cmd.Flags(), &spec)
	require.Zero(t, spec.MinEgressMbpsPerGpu, "no flag: the job needs no network")

	require.Error(t, PostJobCmd().Flags().Parse([]string{"--min-egress-mbps-per-gpu", "-1"}), "egress is unsigned")
}
