package main_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/agent/config"
	"github.com/idlegpu/idlegpu/agent/gpu"
	"github.com/idlegpu/idlegpu/chainclient"
	"github.com/idlegpu/idlegpu/scripts/harness"
	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
	settlementaudit "github.com/idlegpu/idlegpu/x/settlement/audit"
	settlementtypes "github.com/idlegpu/idlegpu/x/settlement/types"
)

// auditJSON is an audit as `q settlement audits` prints it.
type auditJSON struct {
	ID         string       `json:"id"`
	Requester  string       `json:"requester"`
	GPU        string       `json:"gpu_uuid"`
	Status     string       `json:"status"`
	Reason     string       `json:"reason"`
	Fee        harness.Coin `json:"fee"`
	ResolvedAt time.Time    `json:"resolved_at"`
}

// audits lists a provider's audits.
func audits(c *harness.Chain, provider string) []auditJSON {
	var res struct {
		Audits []auditJSON `json:"audits"`
	}
	c.Query(&res, "settlement", "audits", "--provider", provider)
	return res.Audits
}

// rewards is a provider's unclaimed rewards in a denom.
func rewards(c *harness.Chain, provider, denom string) int64 {
	var res struct {
		Rewards []harness.Coin `json:"rewards"`
	}
	c.Query(&res, "settlement", "rewards", provider)
	for _, r := range res.Rewards {
		if r.Denom == denom {
			return r.Int()
		}
	}
	return 0
}

// TestAgentPassesAudits runs the real agent on simulated GPUs against a
// development chain (scripts/node.sh): its GPUs pass their required audits
// before its first offer, a paid audit of an idle GPU is answered, proved
// and paid to the provider, and a provider that proves a tampered
// transcript is judged WRONG and slashed.
func TestAgentPassesAudits(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a chain and the agent (minutes)")
	}
	c := harness.NewChain(t, bins, root, harness.GenesisEdits{
		// A third party may audit a GPU right after its required audit,
		// and no random audit comes between.
		"settlement": {"audit_cooldown_seconds": "1", "random_audits_per_draw": 0},
	})
	var metricsAddr string
	a := harness.NewAgent(t, c, bins, harness.AgentOptions{GPUs: 2, Seed: 21, Edit: func(cfg *config.Config) {
		cfg.Rewards.ClaimEvery = "0" // the audit fee stays in the rewards, to be counted
		metricsAddr = cfg.Metrics.Listen
	}})
	defer func() {
		if t.Failed() {
			t.Logf("agent output (tail):\n%s", harness.Tail(a.Output(), 80))
		}
	}()
	c.Tx("alice", "bank", "send", "alice", a.Addr, "500000000ugpu")
	a.CLI("register", "--region", "eu-de-fra1", "--endpoint", a.Endpoint, "--bond", "200000000ugpu")
	var reg struct {
		GPUs []struct {
			UUID      string `json:"uuid"`
			Simulated bool   `json:"simulated"`
		} `json:"gpus"`
	}
	c.Query(&reg, "provider", "gpus", a.Addr)
	require.Len(t, reg.GPUs, 2)
	var gpus []string
	for _, g := range reg.GPUs {
		require.True(t, g.Simulated, "the sim backend's GPUs are registered as simulated")
		gpus = append(gpus, g.UUID)
	}
	slices.Sort(gpus)
	a.Start()

	t.Run("the GPUs pass their required audits before the first offer", func(t *testing.T) {
		var offers struct {
			Offers []struct {
				GPUs      []string  `json:"gpu_uuids"`
				Status    string    `json:"status"`
				CreatedAt time.Time `json:"created_at"`
			} `json:"offers"`
		}
		harness.WaitFor(t, 90*time.Second, "the agent's offer", func() bool {
			c.Query(&offers, "offer", "provider-offers", a.Addr)
			return len(offers.Offers) > 0
		})
		require.Len(t, offers.Offers, 1, "both GPUs passed together: one offer")
		o := offers.Offers[0]
		require.Equal(t, "OFFER_STATUS_OPEN", o.Status)
		require.ElementsMatch(t, gpus, o.GPUs)

		var audited []string
		for _, au := range audits(c, a.Addr) {
			require.Equal(t, "AUDIT_REASON_REQUIRED", au.Reason)
			require.Equal(t, "AUDIT_STATUS_CORRECT", au.Status)
			require.Equal(t, a.Addr, au.Requester)
			require.True(t, o.CreatedAt.After(au.ResolvedAt), "the offer (%s) came after the verdict (%s)", o.CreatedAt, au.ResolvedAt)
			audited = append(audited, au.GPU)
		}
		require.ElementsMatch(t, gpus, audited)
		for _, g := range gpus {
			var v struct {
				Verified bool `json:"verified"`
			}
			c.Query(&v, "settlement", "verification", g)
			require.True(t, v.Verified, g)
		}
	})

	t.Run("a paid audit by another account is answered, proved and paid to the provider", func(t *testing.T) {
		before := rewards(c, a.Addr, "uusdc")
		c.Tx("alice", "settlement", "request-audit", gpus[0], "100000uusdc")
		var paid auditJSON
		harness.WaitFor(t, 60*time.Second, "the paid audit's verdict", func() bool {
			for _, au := range audits(c, a.Addr) {
				if au.Reason == "AUDIT_REASON_REQUESTED" {
					paid = au
				}
			}
			return paid.Status != "" && paid.Status != "AUDIT_STATUS_OPEN" && paid.Status != "AUDIT_STATUS_ANSWERED"
		})
		require.Equal(t, "AUDIT_STATUS_CORRECT", paid.Status)
		require.Equal(t, c.Address("alice"), paid.Requester)
		require.Equal(t, gpus[0], paid.GPU)
		require.Equal(t, harness.Coin{Denom: "uusdc", Amount: "100000"}, paid.Fee)
		require.Equal(t, before+100_000, rewards(c, a.Addr, "uusdc"), "the fee, to the unit")

		harness.WaitFor(t, 30*time.Second, "the verdicts metered", func() bool {
			m := scrape(metricsAddr)
			return strings.Contains(m, `idlegpu_audits_total{result="requested"} 2`) &&
				strings.Contains(m, `idlegpu_audits_total{result="answered"} 3`) &&
				strings.Contains(m, `idlegpu_audits_total{result="proved"} 3`) &&
				strings.Contains(m, `idlegpu_audits_total{result="correct"} 3`)
		})
		var st struct {
			Agent struct {
				Audits []struct {
					ID     uint64 `json:"id"`
					GPU    string `json:"gpu"`
					Reason string `json:"reason"`
					State  string `json:"state"`
					Runner string `json:"runner"`
				} `json:"audits"`
			} `json:"agent"`
		}
		require.NoError(t, json.Unmarshal(a.CLI("status", "--json"), &st))
		require.Len(t, st.Agent.Audits, 3)
		last := st.Agent.Audits[2]
		require.Equal(t, paid.ID, strconv.FormatUint(last.ID, 10))
		require.Equal(t, "requested", last.Reason)
		require.Equal(t, "correct", last.State)
		require.Equal(t, "cpu-reference", last.Runner)
		require.Contains(t, string(a.CLI("status")), "audit "+paid.ID)
	})

	t.Run("a tampered transcript is judged WRONG and its provider slashed", func(t *testing.T) {
		cheat(t, c)
	})
}

// cheat is a second provider driven by the test: it registers a simulated
// GPU, asks for its required audit, commits to a transcript whose every
// leaf it tampered with, and proves it with that transcript's openings.
// The chain recomputes the sampled segments, judges WRONG, tombstones the
// provider and slashes slash_fraud_bps of its stake.
func cheat(t *testing.T, c *harness.Chain) {
	ctx := context.Background()
	out, err := exec.Command(bins.Idlegpud, "keys", "add", "mallory", "--keyring-backend", "test", "--home", c.Home).CombinedOutput()
	require.NoError(t, err, "%s", out)
	operator := c.Address("mallory")
	c.Tx("alice", "bank", "send", "alice", operator, "500000000ugpu")
	cl, err := chainclient.New(chainclient.Config{RPC: c.RPC, ChainID: c.ChainID, KeyringDir: c.Home, KeyringBackend: "test",
		KeyName: "mallory", GasPrices: config.Default("").Chain.GasPrices})
	require.NoError(t, err)
	defer cl.Close()
	pq := providertypes.NewQueryClient(cl.Context())
	sq := settlementtypes.NewQueryClient(cl.Context())

	sim, err := gpu.NewSim(gpu.SimConfig{Count: 1, Seed: 99})
	require.NoError(t, err)
	devs, err := sim.Devices(ctx)
	require.NoError(t, err)
	d := devs[0]
	info := providertypes.GPUInfo{Uuid: d.UUID, Model: d.Model, MemoryMib: d.MemoryMiB, PciBusId: d.PCIBusID,
		DriverVersion: d.DriverVersion, VbiosVersion: d.VBIOSVersion, Simulated: true}
	_, err = cl.Submit(ctx,
		&providertypes.MsgRegisterProvider{Operator: operator, Moniker: "cheater", Region: "eu-de",
			Endpoint: "https://127.0.0.1:1", TlsCertSha256: strings.Repeat("ab", 32)},
		&providertypes.MsgBond{Operator: operator, Amount: sdk.NewInt64Coin("ugpu", 200_000_000)},
		&providertypes.MsgRegisterGPUs{Signer: operator, Provider: operator, Gpus: []providertypes.GPUInfo{info}},
		&settlementtypes.MsgRequestAudit{Requester: operator, GpuUuid: d.UUID})
	require.NoError(t, err)

	res, err := sq.Audits(ctx, &settlementtypes.QueryAuditsRequest{Provider: operator, Status: settlementtypes.AUDIT_STATUS_OPEN})
	require.NoError(t, err)
	require.Len(t, res.Audits, 1)
	au := res.Audits[0]
	require.Equal(t, settlementtypes.AUDIT_REASON_REQUIRED, au.Reason)

	// The honest transcript, then every leaf's first byte flipped: a board
	// that did not do the work makes its states up.
	states, err := settlementaudit.Run(ctx, au.Seed, au.Shape.Shape())
	require.NoError(t, err)
	for i := 0; i < len(states); i += settlementaudit.StateBytes {
		states[i] ^= 0xff
	}
	tr := settlementtypes.NewAuditTranscript(states)
	_, err = cl.Submit(ctx, &settlementtypes.MsgAnswerAudit{Signer: operator, AuditId: au.Id, Root: tr.Root()})
	require.NoError(t, err)

	var leaves []uint64
	harness.WaitFor(t, 30*time.Second, "the audit's samples", func() bool {
		res, err := sq.AuditSamples(ctx, &settlementtypes.QueryAuditSamplesRequest{AuditId: au.Id})
		if err == nil {
			leaves = res.Leaves
		}
		return err == nil
	})
	before, err := pq.Provider(ctx, &providertypes.QueryProviderRequest{Operator: operator})
	require.NoError(t, err)
	params, err := pq.Params(ctx, &providertypes.QueryParamsRequest{})
	require.NoError(t, err)
	msg := &settlementtypes.MsgProveAudit{Signer: operator, AuditId: au.Id}
	for _, leaf := range leaves {
		msg.Openings = append(msg.Openings, tr.Opening(au.Shape.Shape(), leaf))
	}
	_, err = cl.Submit(ctx, msg)
	require.NoError(t, err, "the openings are well formed: the chain judges them")

	judged, err := sq.Audit(ctx, &settlementtypes.QueryAuditRequest{AuditId: au.Id})
	require.NoError(t, err)
	require.Equal(t, settlementtypes.AUDIT_STATUS_WRONG, judged.Audit.Status)
	after, err := pq.Provider(ctx, &providertypes.QueryProviderRequest{Operator: operator})
	require.NoError(t, err)
	require.Equal(t, providertypes.PROVIDER_STATUS_TOMBSTONED, after.Provider.Status)
	stake := before.Provider.Stake.Amount
	slash := stake.MulRaw(int64(params.Params.SlashFraudBps)).QuoRaw(10_000)
	require.True(t, slash.IsPositive())
	require.Equal(t, stake.Sub(slash), after.Provider.Stake.Amount, "stake less exactly slash_fraud_bps (%d bps of %s)", params.Params.SlashFraudBps, stake)
	v, err := sq.GPUVerification(ctx, &settlementtypes.QueryGPUVerificationRequest{GpuUuid: d.UUID})
	require.NoError(t, err)
	require.False(t, v.Verified, "no pass")
}

// TestSimulatedGPUsNeedADevelopmentChain: on a chain whose genesis does
// not allow simulated GPUs (no `idlegpud genesis development`), register
// and run refuse the sim backend, saying why.
func TestSimulatedGPUsNeedADevelopmentChain(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a chain (a minute)")
	}
	c := harness.NewChain(t, bins, root, harness.GenesisEdits{"provider": {"allow_simulated_gpus": false}})
	a := harness.NewAgent(t, c, bins, harness.AgentOptions{GPUs: 1, Seed: 5})
	c.Tx("alice", "bank", "send", "alice", a.Addr, "500000000ugpu")
	const refusal = `simulated GPUs are for development chains only: gpu.backend is "sim" and chain "idlegpu-local" does not allow simulated GPUs (x/provider allow_simulated_gpus is false); use real GPUs (gpu.backend = "nvml" or "auto")`
	for _, args := range [][]string{
		{"register", "--region", "eu-de-fra1", "--endpoint", a.Endpoint, "--bond", "200000000ugpu"},
		{"register", "--dry-run"},
		{"run"},
	} {
		out, err := exec.Command(bins.Agent, append(args, "--home", a.Home)...).CombinedOutput()
		require.Error(t, err, "%v: %s", args, out)
		require.Contains(t, string(out), refusal, args)
	}
	var p struct {
		Provider json.RawMessage `json:"provider"`
	}
	require.False(t, c.TryQuery(&p, "provider", "provider", a.Addr), "nothing was registered")
}

func scrape(addr string) string {
	res, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		return ""
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return string(b)
}
