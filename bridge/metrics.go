package bridge

import (
	"errors"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/spf13/cobra"
)

const flagMetrics = "metrics-listen"

// metrics are the daemons' Prometheus collectors, in their own registry as
// the agent keeps them: what each side of the bridge has seen and done.
type metrics struct {
	reg          *prometheus.Registry
	EvmHead      prometheus.Gauge
	LastAttested prometheus.Gauge
	Attested     prometheus.Counter
	Superseded   prometheus.Counter
	Attestable   *prometheus.GaugeVec
	Confirms     *prometheus.CounterVec
	Relayed      *prometheus.CounterVec
	Errors       *prometheus.CounterVec
}

func newMetrics(role string) *metrics {
	ns := "idlegpu_bridge_" + role
	m := &metrics{
		reg: prometheus.NewRegistry(),
		EvmHead: prometheus.NewGauge(prometheus.GaugeOpts{Name: ns + "_evm_head",
			Help: "Newest EVM block number seen."}),
		LastAttested: prometheus.NewGauge(prometheus.GaugeOpts{Name: ns + "_last_attested_nonce",
			Help: "The validator's last attested deposit nonce on the idlegpu chain."}),
		Attested: prometheus.NewCounter(prometheus.CounterOpts{Name: ns + "_deposits_attested_total",
			Help: "Deposit attestations sent."}),
		Superseded: prometheus.NewCounter(prometheus.CounterOpts{Name: ns + "_deposits_superseded_total",
			Help: "Deposit votes replaced because an EVM reorg orphaned the block they named."}),
		Attestable: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: ns + "_evm_attestable_block",
			Help: "Newest EVM block deposits are attested up to, by source (finalized or depth)."}, []string{"source"}),
		Confirms: prometheus.NewCounterVec(prometheus.CounterOpts{Name: ns + "_confirms_total",
			Help: "Valset and root confirmations sent, by kind."}, []string{"kind"}),
		Relayed: prometheus.NewCounterVec(prometheus.CounterOpts{Name: ns + "_evm_txs_total",
			Help: "Vault transactions sent, by method."}, []string{"method"}),
		Errors: prometheus.NewCounterVec(prometheus.CounterOpts{Name: ns + "_errors_total",
			Help: "Failed rounds, by step."}, []string{"step"}),
	}
	m.reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		m.EvmHead, m.LastAttested, m.Attested, m.Superseded, m.Attestable, m.Confirms, m.Relayed, m.Errors)
	return m
}

func addMetricsFlag(cmd *cobra.Command) {
	cmd.Flags().String(flagMetrics, "", "address to serve Prometheus /metrics on, e.g. 127.0.0.1:9470 (default: none)")
}

// serve starts the /metrics listener the flag asks for; it closes with the
// returned function. A port in use fails the start, not silently later.
func (m *metrics) serve(cmd *cobra.Command, log *slog.Logger) (func(), error) {
	addr, _ := cmd.Flags().GetString(flagMetrics)
	if addr == "" {
		return func() {}, nil
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{}))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("metrics listener", "err", err)
		}
	}()
	log.Info("metrics", "addr", l.Addr().String())
	return func() { _ = srv.Close() }, nil
}
