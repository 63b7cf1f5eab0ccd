package policy

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestAcceptsEgress(t *testing.T) {
	require.NoError(t, AcceptsEgress(0, 0), "no network offered, none needed")
	require.NoError(t, AcceptsEgress(1000, 0), "a job that needs none is taken by any agent")
	require.NoError(t, AcceptsEgress(1000, 1000), "exactly enough")
	require.EqualError(t, AcceptsEgress(1000, 1001), "job needs 1001 Mbit/s of egress per GPU, runner.egress_mbps_per_gpu gives 1000")
	require.EqualError(t, AcceptsEgress(0, 1), "job needs 1 Mbit/s of egress per GPU, runner.egress_mbps_per_gpu gives 0")
}
