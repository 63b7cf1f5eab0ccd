package config

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	offertypes "github.com/idlegpu/idlegpu/x/offer/types"
)

// The process runner runs renters' commands on the host: only with the
// explicit unsafe consent.
func TestProcessRunnerNeedsUnsafeConsent(t *testing.T) {
	c := Default(t.TempDir())
	c.Runner.Backend = "process"
	require.ErrorContains(t, c.Validate(), "set runner.unsafe_process_runner = true")
	c.Runner.UnsafeProcessRunner = true
	require.NoError(t, c.Validate())
}

// policy.workloads takes exactly the chain's workload names: one it does
// not know could never be matched, and one the chain has must be offerable.
func TestWorkloadsAreTheChainsWorkloads(t *testing.T) {
	var chain []string
	for v, name := range offertypes.Workload_name {
		if v != int32(offertypes.WORKLOAD_UNSPECIFIED) {
			chain = append(chain, strings.ToLower(strings.TrimPrefix(name, "WORKLOAD_")))
		}
	}
	slices.Sort(chain)
	got := slices.Clone(workloads)
	slices.Sort(got)
	require.Equal(t, chain, got)

	c := Default(t.TempDir())
	c.Policy.Workloads = []string{"render"}
	require.NoError(t, c.Validate())
	c.Policy.Workloads = []string{"interactive"}
	require.ErrorContains(t, c.Validate(), `unknown workload "interactive"`)
}
