package main_test

import (
	"encoding/json"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/agent/config"
	"github.com/idlegpu/idlegpu/scripts/harness"
)

// TestAgentAnswersAudits runs the real agent against a real idlegpud whose
// genesis names alice an auditor (scripts/node.sh): alice audits the idle
// GPU, the agent runs the workload and answers, alice reveals, and the
// verdict is CORRECT — the fee reaches the provider and nothing is
// slashed. Without the agent's answer the audit times out as fraud.
func TestAgentAnswersAudits(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a chain and the agent (minutes)")
	}
	// A short audit latency keeps the deadline, and so the test, short.
	c := harness.NewChain(t, bins, root, harness.GenesisEdits{
		"settlement": {"audit_latency_seconds": "20"},
	})
	var metricsAddr string
	a := harness.NewAgent(t, c, bins, harness.AgentOptions{GPUs: 1, Seed: 11, Edit: func(cfg *config.Config) {
		cfg.Rewards.ClaimEvery = "5s"
		metricsAddr = cfg.Metrics.Listen
	}})
	defer func() {
		if t.Failed() {
			t.Logf("agent output (tail):\n%s", harness.Tail(a.Output(), 60))
		}
	}()
	c.Tx("alice", "bank", "send", "alice", a.Addr, "500000000ugpu")
	out := string(a.CLI("register", "--region", "eu-de-fra1", "--endpoint", a.Endpoint, "--bond", "200000000ugpu"))
	gpu := out[strings.Index(out, "GPU-"):]
	gpu = gpu[:strings.IndexAny(gpu, " \t\n,)")]
	a.Start()

	var plan struct {
		Seed, Salt, Expected, Commitment string
	}
	raw, err := exec.Command(bins.Idlegpud, "audit", "plan", "40").Output()
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &plan))

	stakeBefore := providerStake(t, c, a.Addr)
	const fee = 1_000_000
	deadline := c.BlockTime(c.Height()).Add(90 * time.Second).UTC().Format(time.RFC3339)
	c.Tx("alice", "settlement", "open-audit", a.Addr, gpu, "idlegpu/matmul-u32/v1", plan.Seed, "40", plan.Commitment, deadline, "1000000uusdc")

	// The agent answers on its own, well before the deadline.
	var au struct {
		Audit struct {
			Status string `json:"status"`
			Result string `json:"result"`
		} `json:"audit"`
	}
	harness.WaitFor(t, 60*time.Second, "the agent's answer", func() bool {
		c.Query(&au, "settlement", "audit", "1")
		return au.Audit.Status == "AUDIT_STATUS_ANSWERED"
	})
	c.Tx("alice", "settlement", "reveal-audit", "1", plan.Salt, plan.Expected)
	c.Query(&au, "settlement", "audit", "1")
	require.Equal(t, "AUDIT_STATUS_CORRECT", au.Audit.Status)

	// The fee is the provider's (the agent claims it), the stake untouched.
	harness.WaitFor(t, 60*time.Second, "the fee claimed to the provider", func() bool {
		return c.Balance(a.Addr, "uusdc") == fee
	})
	require.Equal(t, stakeBefore, providerStake(t, c, a.Addr))
	var p struct {
		Provider struct {
			Status string `json:"status"`
		} `json:"provider"`
	}
	c.Query(&p, "provider", "provider", a.Addr)
	require.Equal(t, "PROVIDER_STATUS_ACTIVE", p.Provider.Status)

	// The agent meters the answer and the verdict, and shows the audit.
	harness.WaitFor(t, 30*time.Second, "the verdict metered", func() bool {
		m := scrape(t, metricsAddr)
		return strings.Contains(m, `idlegpu_audits_total{result="answered"} 1`) &&
			strings.Contains(m, `idlegpu_audits_total{result="correct"} 1`)
	})
	var st struct {
		Agent struct {
			Audits []struct {
				ID     uint64 `json:"id"`
				GPU    string `json:"gpu"`
				State  string `json:"state"`
				Runner string `json:"runner"`
			} `json:"audits"`
		} `json:"agent"`
	}
	require.NoError(t, json.Unmarshal(a.CLI("status", "--json"), &st))
	require.Len(t, st.Agent.Audits, 1)
	require.Equal(t, uint64(1), st.Agent.Audits[0].ID)
	require.Equal(t, gpu, st.Agent.Audits[0].GPU)
	require.Equal(t, "correct", st.Agent.Audits[0].State)
	require.Equal(t, "cpu-reference", st.Agent.Audits[0].Runner)
	require.Contains(t, string(a.CLI("status")), "audit 1")
}

func providerStake(t *testing.T, c *harness.Chain, addr string) string {
	var p struct {
		Provider struct {
			Stake json.RawMessage `json:"stake"`
		} `json:"provider"`
	}
	c.Query(&p, "provider", "provider", addr)
	require.NotEmpty(t, p.Provider.Stake)
	return string(p.Provider.Stake)
}

func scrape(t *testing.T, addr string) string {
	res, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		return ""
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return string(b)
}
