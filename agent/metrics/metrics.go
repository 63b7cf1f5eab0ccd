// Package metrics is the agent's Prometheus endpoint: per-GPU telemetry
// under dcgm-exporter's names (so existing GPU dashboards work unchanged)
// and the agent's market activity: bids, wins, leases, proofs, earnings.
package metrics

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/idlegpu/idlegpu/agent/gpu"
)

// Metrics holds the agent's collectors in their own registry.
type Metrics struct {
	reg *prometheus.Registry

	util, memUsed, power, energy, temp, smClock, procs *prometheus.GaugeVec
	xid                                                *prometheus.CounterVec

	Bids           prometheus.Counter
	Wins           prometheus.Counter
	Leases         *prometheus.GaugeVec
	ProofsSent     prometheus.Counter
	ProofsFailed   prometheus.Counter
	Earnings       *prometheus.GaugeVec
	ChainHeight    prometheus.Gauge
	SamplesDropped prometheus.Counter
	// Audits counts the audits of this machine's GPUs by what became of
	// them: requested (a required audit asked for), answered (the root on
	// chain), proved (the openings on chain), failed (the workload could
	// not run, or a transaction was refused), late (a deadline passed
	// first), mismatch (a restart recomputed another root), then the
	// chain's verdict (correct, wrong, missed, unproven).
	Audits *prometheus.CounterVec

	healthy, offersPaused prometheus.Gauge
	hostCheck, mode       *prometheus.GaugeVec
}

// modes are the operator's modes, each a series of idlegpu_agent_mode.
var modes = []string{"running", "paused", "draining", "left"}

var gpuLabels = []string{"gpu", "UUID", "modelName"}

// New registers every metric in a fresh registry.
func New() *Metrics {
	g := func(name, help string) *prometheus.GaugeVec {
		return prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: name, Help: help}, gpuLabels)
	}
	m := &Metrics{
		reg:     prometheus.NewRegistry(),
		util:    g("DCGM_FI_DEV_GPU_UTIL", "GPU utilization (in %)."),
		memUsed: g("DCGM_FI_DEV_FB_USED", "Framebuffer memory used (in MiB)."),
		power:   g("DCGM_FI_DEV_POWER_USAGE", "Power draw (in W)."),
		energy:  g("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "Total energy consumption since boot (in mJ)."),
		temp:    g("DCGM_FI_DEV_GPU_TEMP", "GPU temperature (in C)."),
		smClock: g("DCGM_FI_DEV_SM_CLOCK", "SM clock frequency (in MHz)."),
		procs:   g("idlegpu_agent_gpu_processes", "Compute processes on the GPU."),
		xid: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "idlegpu_agent_gpu_xid_errors_total",
			Help: "Critical XID events seen on the GPU."}, gpuLabels),
		Bids: prometheus.NewCounter(prometheus.CounterOpts{Name: "idlegpu_agent_bids_total", Help: "Bids placed."}),
		Wins: prometheus.NewCounter(prometheus.CounterOpts{Name: "idlegpu_agent_wins_total", Help: "Leases won."}),
		Leases: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "idlegpu_agent_leases",
			Help: "Leases of the provider by status."}, []string{"status"}),
		ProofsSent: prometheus.NewCounter(prometheus.CounterOpts{Name: "idlegpu_agent_proofs_submitted_total",
			Help: "Epoch proofs included on chain."}),
		ProofsFailed: prometheus.NewCounter(prometheus.CounterOpts{Name: "idlegpu_agent_proofs_failed_total",
			Help: "Epoch proofs whose transaction failed."}),
		Earnings: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "idlegpu_agent_unclaimed_rewards",
			Help: "Unclaimed rewards of the provider, in base units."}, []string{"denom"}),
		ChainHeight: prometheus.NewGauge(prometheus.GaugeOpts{Name: "idlegpu_agent_chain_height", Help: "Latest block followed."}),
		SamplesDropped: prometheus.NewCounter(prometheus.CounterOpts{Name: "idlegpu_agent_gpu_read_failures_total",
			Help: "GPU reads that failed (left out of their tick)."}),
		Audits: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "idlegpu_audits_total",
			Help: "Audits of this machine's GPUs by result: requested, answered, proved, failed, late, mismatch, then the verdict."}, []string{"result"}),
		healthy: prometheus.NewGauge(prometheus.GaugeOpts{Name: "idlegpu_agent_host_healthy",
			Help: "1 while the machine can run jobs (runner, GPUs, disk); 0 while its offers are withdrawn for it."}),
		offersPaused: prometheus.NewGauge(prometheus.GaugeOpts{Name: "idlegpu_agent_offers_paused",
			Help: "1 while the machine's offers are published PAUSED (operator, health, or a thermal or power limit)."}),
		hostCheck: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "idlegpu_agent_host_check",
			Help: "The last host check of each part (runner, gpu, disk): 1 ok, 0 failing."}, []string{"part"}),
		mode: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "idlegpu_agent_mode",
			Help: "The operator's mode: 1 for the current one of running, paused, draining, left."}, []string{"mode"}),
	}
	m.reg.MustRegister(m.util, m.memUsed, m.power, m.energy, m.temp, m.smClock, m.procs, m.xid,
		m.Bids, m.Wins, m.Leases, m.ProofsSent, m.ProofsFailed, m.Earnings, m.ChainHeight, m.SamplesDropped, m.Audits,
		m.healthy, m.offersPaused, m.hostCheck, m.mode,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m.healthy.Set(1) // until a check says otherwise
	return m
}

// ObserveGPU records one reading of GPU index i.
func (m *Metrics) ObserveGPU(i string, info gpu.Info, r gpu.Reading) {
	l := prometheus.Labels{"gpu": i, "UUID": info.UUID, "modelName": info.Model}
	m.util.With(l).Set(float64(r.UtilBps) / 100)
	m.memUsed.With(l).Set(float64(r.MemUsedMiB))
	m.power.With(l).Set(float64(r.PowerMW) / 1000)
	m.energy.With(l).Set(float64(r.EnergyMJ))
	m.temp.With(l).Set(float64(r.TempC))
	m.smClock.With(l).Set(float64(r.SMClockMHz))
	m.procs.With(l).Set(float64(len(r.PIDs)))
	m.xid.With(l).Add(float64(r.XIDErrors))
}

// SetHealthy records whether the machine can run jobs.
func (m *Metrics) SetHealthy(ok bool) { m.healthy.Set(b2f(ok)) }

// SetOffersPaused records whether the offers were last published PAUSED.
func (m *Metrics) SetOffersPaused(paused bool) { m.offersPaused.Set(b2f(paused)) }

// SetHostCheck records one part's last check.
func (m *Metrics) SetHostCheck(part string, ok bool) { m.hostCheck.WithLabelValues(part).Set(b2f(ok)) }

// SetMode marks the operator's current mode (an unknown name counts as none).
func (m *Metrics) SetMode(mode string) {
	for _, s := range modes {
		m.mode.WithLabelValues(s).Set(b2f(s == mode || (mode == "" && s == "running")))
	}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// Handler serves /metrics.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}
