package daemon

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/idlegpu/idlegpu/agent/auditor"
)

// Health is what /healthz reports and `idlegpu-agent status` shows: the
// last block followed, the last sample taken, the last failure.
type Health struct {
	mu sync.Mutex
	s  HealthState
}

// HealthState is a snapshot of Health.
type HealthState struct {
	Height      int64     `json:"height"`
	BlockTime   time.Time `json:"block_time"`
	SeenAt      time.Time `json:"seen_at"`
	LastSample  time.Time `json:"last_sample"`
	LastError   string    `json:"last_error,omitempty"`
	LastErrorAt time.Time `json:"last_error_at,omitzero"`
	ProofsSent  uint64    `json:"proofs_sent"`
	// Audits are the live audits of this machine's GPUs and the last
	// finished ones.
	Audits []auditor.AuditState `json:"audits,omitempty"`
	// Mode is the operator's (running, paused, draining, left); LeftAt is
	// when a leave closed the offers and deregistered the GPUs.
	Mode   Mode      `json:"mode,omitempty"`
	LeftAt time.Time `json:"left_at,omitzero"`
	// LiveLeases are the leases on this machine's GPUs a drain waits for
	// (counted while draining or leaving); Drained is none left.
	LiveLeases int  `json:"live_leases,omitempty"`
	Drained    bool `json:"drained,omitempty"`
	// HostUnhealthy is a machine that cannot run jobs (runner, GPUs,
	// disk), with why: its offers are withdrawn and new leases refused.
	HostUnhealthy bool     `json:"host_unhealthy,omitempty"`
	HostReasons   []string `json:"host_reasons,omitempty"`
	// OffersPaused says the machine's offers were last published PAUSED,
	// and OffersPausedBy why (operator, unhealthy, thermal or power limit).
	OffersPaused   bool   `json:"offers_paused"`
	OffersPausedBy string `json:"offers_paused_by,omitempty"`
}

// HealthReport is the snapshot with its verdict: the JSON of /healthz.
type HealthReport struct {
	OK     bool     `json:"ok"`
	Issues []string `json:"issues,omitempty"`
	HealthState
}

func (h *Health) update(f func(s *HealthState)) {
	h.mu.Lock()
	defer h.mu.Unlock()
	f(&h.s)
}

func (h *Health) block(height int64, t time.Time) {
	h.update(func(s *HealthState) { s.Height, s.BlockTime, s.SeenAt = height, t, time.Now() })
}

// chainNow estimates the chain's time: the last block's time plus the time
// since it was seen.
func (h *Health) chainNow() time.Time {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.s.BlockTime.IsZero() {
		return time.Now()
	}
	return h.s.BlockTime.Add(time.Since(h.s.SeenAt))
}

func (h *Health) sampled(t time.Time) { h.update(func(s *HealthState) { s.LastSample = t }) }

func (h *Health) failure(part string, err error) {
	h.update(func(s *HealthState) { s.LastError, s.LastErrorAt = part+": "+err.Error(), time.Now() })
}

func (h *Health) setMode(m ModeState) {
	h.update(func(s *HealthState) {
		s.Mode, s.LeftAt = m.Mode, m.LeftAt
		if m.Mode != ModeDraining && m.Mode != ModeLeft {
			s.LiveLeases, s.Drained = 0, false
		}
	})
}

func (h *Health) drained(live int) {
	h.update(func(s *HealthState) { s.LiveLeases, s.Drained = live, live == 0 })
}

func (h *Health) host(unhealthy bool, reasons []string) {
	h.update(func(s *HealthState) { s.HostUnhealthy, s.HostReasons = unhealthy, reasons })
}

func (h *Health) offers(pausedBy string) {
	h.update(func(s *HealthState) { s.OffersPaused, s.OffersPausedBy = pausedBy != "", pausedBy })
}

func (h *Health) proofs(n int) { h.update(func(s *HealthState) { s.ProofsSent += uint64(n) }) }

// report judges the agent healthy when it saw a block in the last minute,
// sampled within three sample intervals, and its machine can run jobs.
func (h *Health) report(now time.Time, interval time.Duration) HealthReport {
	h.mu.Lock()
	r := HealthReport{HealthState: h.s}
	r.Audits = slices.Clone(h.s.Audits)
	r.HostReasons = slices.Clone(h.s.HostReasons)
	h.mu.Unlock()
	if now.Sub(r.SeenAt) > time.Minute {
		r.Issues = append(r.Issues, "no block from the node for over a minute")
	}
	if now.Sub(r.LastSample) > 3*interval {
		r.Issues = append(r.Issues, "GPUs not sampled for three intervals")
	}
	if r.HostUnhealthy {
		r.Issues = append(r.Issues, "cannot run jobs (offers withdrawn): "+strings.Join(r.HostReasons, "; "))
	}
	r.OK = len(r.Issues) == 0
	return r
}

func (h *Health) handler(interval time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		r := h.report(time.Now(), interval)
		w.Header().Set("Content-Type", "application/json")
		if !r.OK {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
		_ = json.NewEncoder(w).Encode(r)
	})
}
