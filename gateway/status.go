package gateway

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
)

// upstreamStatus is one upstream in /status.
type upstreamStatus struct {
	Lease     uint64  `json:"lease"`
	URL       string  `json:"url"`
	Region    string  `json:"region"`
	Healthy   bool    `json:"healthy"`
	LatencyMs float64 `json:"latency_ms"`
	InFlight  int     `json:"in_flight"`
	Fails     uint64  `json:"fails"`
	LastError string  `json:"last_error,omitempty"`
}

// StatusHandler serves /healthz (200 while every deployment has a healthy
// lease, else 503 naming the one without) and /status (the gateway's
// region and each upstream's state, JSON), for the operator's monitoring.
func (g *Gateway) StatusHandler(region string) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/status", func(w http.ResponseWriter, r *http.Request) {
		deps := map[string][]upstreamStatus{}
		for host, d := range g.deps {
			for _, s := range d.pool.states() {
				deps[host] = append(deps[host], upstreamStatus{Lease: s.Upstream.LeaseID, URL: s.Upstream.URL.String(), Region: s.Upstream.Region,
					Healthy: s.Healthy, LatencyMs: float64(s.Latency.Microseconds()) / 1000, InFlight: s.InFlight, Fails: s.Fails, LastError: s.LastErr})
			}
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"region": region, "deployments": deps})
	})
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {
		hosts := make([]string, 0, len(g.deps))
		for host := range g.deps {
			hosts = append(hosts, host)
		}
		sort.Strings(hosts)
		for _, host := range hosts {
			healthy := false
			for _, s := range g.deps[host].pool.states() {
				healthy = healthy || s.Healthy
			}
			if !healthy {
				http.Error(w, "deployment "+host+" has no healthy lease", http.StatusServiceUnavailable)
				return
			}
		}
		fmt.Fprintln(w, "ok")
	})
	return mux
}
