package main_test

import (
	"testing"
	"time"

	"github.com/idlegpu/idlegpu/agent/config"
	"github.com/idlegpu/idlegpu/scripts/harness"
)

// dockerRunner sets an agent to the docker runner with the sandbox's limits
// as init would derive them on a small machine.
func dockerRunner(cfg *config.Config) {
	cfg.Runner.Backend, cfg.Runner.UnsafeProcessRunner = "docker", false
	cfg.Runner.CPUCoresPerGPU, cfg.Runner.MemoryMiBPerGPU, cfg.Runner.DiskGiBPerGPU = 1, 512, 1
	cfg.Runner.MaxImageBytes = 1 << 30
}

// startProvider funds the agent's key from alice, registers it in region
// with a bond, starts it and waits until its one offer is open.
func startProvider(t *testing.T, c *harness.Chain, a *harness.Agent, region, moniker string) {
	t.Helper()
	c.Tx("alice", "bank", "send", "alice", a.Addr, "500000000ugpu")
	a.CLI("register", "--region", region, "--endpoint", a.Endpoint, "--bond", "200000000ugpu", "--moniker", moniker)
	a.Start()
	harness.WaitFor(t, 90*time.Second, "the offer of "+moniker, func() bool {
		var offers struct {
			Offers []struct {
				Status string `json:"status"`
			} `json:"offers"`
		}
		c.Query(&offers, "offer", "provider-offers", a.Addr)
		return len(offers.Offers) == 1 && offers.Offers[0].Status == "OFFER_STATUS_OPEN"
	})
}
