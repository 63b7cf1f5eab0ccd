package metrics

import (
	"io"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/agent/gpu"
)

func TestScrapeShowsTelemetryAndActivity(t *testing.T) {
	m := New()
	info := gpu.Info{UUID: "GPU-a", Model: "NVIDIA H100 80GB HBM3"}
	m.ObserveGPU("0", info, gpu.Reading{UUID: "GPU-a", UtilBps: 9750, MemUsedMiB: 70_000, PowerMW: 650_500, EnergyMJ: 123456789,
		TempC: 71, SMClockMHz: 1980, PIDs: []uint32{1, 2}, XIDErrors: 1})
	m.ObserveGPU("0", info, gpu.Reading{UUID: "GPU-a", UtilBps: 9800, XIDErrors: 2})
	m.Bids.Add(3)
	m.ProofsSent.Inc()
	m.Leases.WithLabelValues("ACTIVE").Set(2)
	m.Earnings.WithLabelValues("uusdc").Set(4115223)

	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	b, err := io.ReadAll(rec.Body)
	require.NoError(t, err)
	out := string(b)
	labels := `{UUID="GPU-a",gpu="0",modelName="NVIDIA H100 80GB HBM3"}`
	for _, want := range []string{
		"DCGM_FI_DEV_GPU_UTIL" + labels + " 98",
		"DCGM_FI_DEV_FB_USED" + labels + " 0",
		"idlegpu_agent_gpu_xid_errors_total" + labels + " 3",
		"idlegpu_agent_bids_total 3",
		"idlegpu_agent_proofs_submitted_total 1",
		`idlegpu_agent_leases{status="ACTIVE"} 2`,
		`idlegpu_agent_unclaimed_rewards{denom="uusdc"} 4.115223e+06`,
		"process_resident_memory_bytes",
	} {
		require.Contains(t, out, want)
	}
}

// The operator's mode, the machine's health per part and whether the
// offers are paused are scraped as they were last set.
func TestScrapeShowsModeHealthAndOffers(t *testing.T) {
	m := New()
	scrape := func() string {
		rec := httptest.NewRecorder()
		m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
		return rec.Body.String()
	}
	require.Contains(t, scrape(), "idlegpu_agent_host_healthy 1")

	m.SetMode("draining")
	m.SetHealthy(false)
	m.SetHostCheck("runner", false)
	m.SetHostCheck("disk", true)
	m.SetOffersPaused(true)
	out := scrape()
	for _, want := range []string{
		`idlegpu_agent_mode{mode="draining"} 1`,
		`idlegpu_agent_mode{mode="running"} 0`,
		`idlegpu_agent_mode{mode="paused"} 0`,
		`idlegpu_agent_mode{mode="left"} 0`,
		"idlegpu_agent_host_healthy 0",
		`idlegpu_agent_host_check{part="runner"} 0`,
		`idlegpu_agent_host_check{part="disk"} 1`,
		"idlegpu_agent_offers_paused 1",
	} {
		require.Contains(t, out, want)
	}
	m.SetMode("")
	require.Contains(t, scrape(), `idlegpu_agent_mode{mode="running"} 1`, "no mode recorded is running")
}
