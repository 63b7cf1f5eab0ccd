package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	offertypes "github.com/idlegpu/idlegpu/x/offer/types"
)

func TestDefaultRoundTripsThroughCommentedTOML(t *testing.T) {
	home := t.TempDir()
	c := Default(home)
	require.NoError(t, c.Validate())
	b, err := c.Marshal()
	require.NoError(t, err)
	text := string(b)
	for _, want := range []string{"# The idlegpu chain", "rpc = 'tcp://127.0.0.1:26657'", "# auto | nvml | sim", "[policy]", "[[policy.prices]]"} {
		require.Contains(t, text, want)
	}
	path := filepath.Join(home, "agent.toml")
	require.NoError(t, os.WriteFile(path, b, 0o600))
	got, err := Load(path)
	require.NoError(t, err)
	require.Equal(t, c, got)
}

func TestLoadRejects(t *testing.T) {
	home := t.TempDir()
	write := func(edit func(string) string) string {
		b, err := Default(home).Marshal()
		require.NoError(t, err)
		p := filepath.Join(home, "agent.toml")
		require.NoError(t, os.WriteFile(p, []byte(edit(string(b))), 0o600))
		return p
	}
	for _, tc := range []struct {
		name, from, to, err string
	}{
		{"a typo in a key", "max_temp_c", "max_temperature_c", "max_temperature_c"},
		{"unknown gpu backend", "backend = 'auto'", "backend = 'cuda'", "gpu.backend must be auto, nvml or sim"},
		{"unknown runner", "backend = 'docker'", "backend = 'podman'", "runner.backend must be docker or process"},
		{"unknown workload", "'batch'", "'mining'", `unknown workload "mining"`},
		{"no chain id", "chain_id = 'idlegpu-local'", "chain_id = ''", "chain.chain_id must be set"},
		{"bad keyring", "keyring_backend = 'file'", "keyring_backend = 'kwallet'", "key.keyring_backend must be file, os or test"},
		{"no preemption window", "preempt_after = 6", "preempt_after = 0", "policy.preempt_after must be at least 1"},
		{"a certificate without its key", "tls_key = '", "tls_key = '' #'", "endpoint.tls_cert and endpoint.tls_key go together"},
		{"a bad claim interval", "claim_every = '24h'", "claim_every = 'daily'", "rewards.claim_every"},
		{"an unknown limit given up", "unlimited = []", "unlimited = ['gpu']", `runner.unlimited: unknown limit "gpu" (known: cpu, memory, disk, pids, images)`},
	} {
		p := write(func(s string) string {
			require.Contains(t, s, tc.from, tc.name)
			return strings.Replace(s, tc.from, tc.to, 1)
		})
		_, err := Load(p)
		require.ErrorContains(t, err, tc.err, tc.name)
	}
	// Plain HTTP carries manifests (and their secrets) in the clear: only on loopback.
	for listen, ok := range map[string]bool{"0.0.0.0:9180": false, "192.0.2.7:9180": false, "127.0.0.1:9180": true, "localhost:9180": true, "[::1]:9180": true} {
		c := Default(home)
		c.Endpoint = Endpoint{Listen: listen}
		if ok {
			require.NoError(t, c.Validate(), listen)
		} else {
			require.ErrorContains(t, c.Validate(), "plain HTTP is for loopback only", listen)
		}
	}
	_, err := Load(filepath.Join(home, "missing.toml"))
	require.Error(t, err)
}

func TestPriceLine(t *testing.T) {
	home := t.TempDir()
	c := Default(home)
	c.Policy.Prices = append(c.Policy.Prices, Price{Model: "B", OnDemand: "1usdc"})
	b, err := c.Marshal()
	require.NoError(t, err)
	p := filepath.Join(home, "agent.toml")
	require.NoError(t, os.WriteFile(p, b, 0o600))
	lines := strings.Split(string(b), "\n")
	for i, key := range []string{"on_demand", "preemptible"} {
		n := PriceLine(p, 1-i, key)
		require.Positive(t, n)
		require.True(t, strings.HasPrefix(strings.TrimSpace(lines[n-1]), key+" = "), lines[n-1])
	}
	require.Equal(t, "on_demand = '1usdc'", strings.TrimSpace(lines[PriceLine(p, 1, "on_demand")-1]))
	require.Zero(t, PriceLine(p, 2, "on_demand"))
}

// A number that does not fit, or a value of the wrong type, names its key
// and line.
func TestLoadErrorsNameKeyAndLine(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ body, want string }{
		{"[policy]\nmax_temp_c = -1\n", "agent.toml:2: policy.max_temp_c = -1 does not fit in uint32"},
		{"[policy]\n# hot\nmax_power_w = 99999999999 # W\n", "agent.toml:3: policy.max_power_w = 99999999999 does not fit in uint32"},
		{"[policy]\nmax_temp_c = 'hot'\n", "agent.toml:2: toml: cannot decode TOML string"},
	} {
		path := filepath.Join(dir, "agent.toml")
		require.NoError(t, os.WriteFile(path, []byte(tc.body), 0o600))
		_, err := Load(path)
		require.ErrorContains(t, err, filepath.Join(dir, tc.want))
	}
}

// TestRPCFallbacks: a config without rpc_fallbacks (one node) still loads;
// with them, every address is kept in order, and an empty one is refused.
func TestRPCFallbacks(t *testing.T) {
	home := t.TempDir()
	b, err := Default(home).Marshal()
	require.NoError(t, err)
	p := filepath.Join(home, "agent.toml")
	write := func(text string) {
		require.NoError(t, os.WriteFile(p, []byte(text), 0o600))
	}
	one := dropLine(string(b), "rpc_fallbacks = ")
	write(one)
	c, err := Load(p)
	require.NoError(t, err)
	require.Equal(t, "tcp://127.0.0.1:26657", c.Chain.RPC)
	require.Empty(t, c.Chain.RPCFallbacks)

	write(strings.Replace(one, "rpc = 'tcp://127.0.0.1:26657'",
		"rpc = 'tcp://127.0.0.1:26657'\nrpc_fallbacks = ['tcp://node-b:26657', 'tcp://node-c:26657']", 1))
	c, err = Load(p)
	require.NoError(t, err)
	require.Equal(t, []string{"tcp://node-b:26657", "tcp://node-c:26657"}, c.Chain.RPCFallbacks)

	write(strings.Replace(one, "rpc = 'tcp://127.0.0.1:26657'", "rpc = 'tcp://127.0.0.1:26657'\nrpc_fallbacks = ['']", 1))
	_, err = Load(p)
	require.ErrorContains(t, err, "chain.rpc_fallbacks[0] must be set")
}

// dropLine drops the lines starting with prefix.
func dropLine(text, prefix string) string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if !strings.HasPrefix(l, prefix) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// A file written before runner.unlimited and log_max_mib existed, with its
// limits at 0, still loads: the docker runner, not the loader, refuses
// those zeros (they are no limit only where unlimited names them).
func TestOldRunnerSettingsStillLoad(t *testing.T) {
	home := t.TempDir()
	b, err := Default(home).Marshal()
	require.NoError(t, err)
	var kept []string
	lines := strings.Split(string(b), "\n")
	for _, line := range lines {
		if !strings.HasPrefix(line, "unlimited") && !strings.HasPrefix(line, "log_max_mib") {
			kept = append(kept, line)
		}
	}
	require.Len(t, kept, len(lines)-2, "both new settings taken out")
	p := filepath.Join(home, "agent.toml")
	require.NoError(t, os.WriteFile(p, []byte(strings.Join(kept, "\n")), 0o600))
	c, err := Load(p)
	require.NoError(t, err)
	require.Empty(t, c.Runner.Unlimited)
	require.Zero(t, c.Runner.CPUCoresPerGPU)
	require.Zero(t, c.Runner.LogMaxMiB)
}

// An egress above the chain's bound would make every offer fail on chain:
// the config refuses it at load.
func TestEgressAboveTheChainsBound(t *testing.T) {
	c := Default("/tmp/agent")
	c.Runner.EgressMbpsPerGPU = offertypes.MaxEgressMbpsPerGPU
	require.NotContains(t, fmt.Sprint(c.Validate()), "egress_mbps_per_gpu")
	c.Runner.EgressMbpsPerGPU = offertypes.MaxEgressMbpsPerGPU + 1
	require.ErrorContains(t, c.Validate(), "runner.egress_mbps_per_gpu: 100001 is above the chain's bound of 100000 Mbit/s per GPU")
}

// The endpoint's connection caps: 0 is the default, negatives are refused.
func TestEndpointConnectionCaps(t *testing.T) {
	c := Default("/tmp/agent")
	c.Endpoint.MaxConns, c.Endpoint.MaxConnsPerHost = 1024, 200
	require.NotContains(t, fmt.Sprint(c.Validate()), "max_conns")
	c.Endpoint.MaxConnsPerHost = -1
	require.ErrorContains(t, c.Validate(), "endpoint.max_conns 1024 and max_conns_per_host -1: want 0 (the default) or more")
}
