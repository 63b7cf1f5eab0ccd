package ingress

import (
	"sync"
	"time"
)

// latencyBounds are the upper bounds of the latency histogram's buckets, in
// milliseconds; a latency above the last is counted past it. Quantiles are
// read as the bound of the bucket they fall in: at most one bucket's width
// (about 1.5×) above the true value, and the same figure on every machine.
var latencyBounds = [...]int64{1, 2, 3, 5, 7, 10, 15, 20, 30, 50, 70, 100, 150, 200, 300, 500, 700,
	1_000, 1_500, 2_000, 3_000, 5_000, 7_000, 10_000, 15_000, 20_000, 30_000, 60_000}

// Meter counts one lease's traffic. It is safe for concurrent use.
type Meter struct {
	mu sync.Mutex
	s  Snapshot
	// latency counts requests per latencyBounds bucket, the last past them.
	latency [len(latencyBounds) + 1]uint64
}

// Snapshot is what a meter has counted.
type Snapshot struct {
	// Requests the lease's service answered (any status), Refused those the
	// proxy turned away (bad key, rate, the lease's end) and Failed those
	// the service did not answer.
	Requests, Refused, Failed uint64
	// BytesIn from callers to the service and BytesOut back, bodies and
	// upgraded connections' traffic, not headers.
	BytesIn, BytesOut uint64
	// PromptTokens and CompletionTokens are what OpenAI-compatible answers
	// reported in their "usage".
	PromptTokens, CompletionTokens uint64
	// LatencyP50 and LatencyP95 are the time from a request's arrival to
	// the service's response header, as the histogram has them; 0 with no
	// request answered.
	LatencyP50, LatencyP95 time.Duration
}

func (m *Meter) refused() {
	m.mu.Lock()
	m.s.Refused++
	m.mu.Unlock()
}

func (m *Meter) failed() {
	m.mu.Lock()
	m.s.Failed++
	m.mu.Unlock()
}

// answered counts a request the service answered after latency.
func (m *Meter) answered(latency time.Duration) {
	ms := latency.Milliseconds()
	i := 0
	for i < len(latencyBounds) && ms > latencyBounds[i] {
		i++
	}
	m.mu.Lock()
	m.s.Requests++
	m.latency[i]++
	m.mu.Unlock()
}

func (m *Meter) bytes(in, out uint64) {
	m.mu.Lock()
	m.s.BytesIn += in
	m.s.BytesOut += out
	m.mu.Unlock()
}

// tokens adds an answer's usage; a service reporting absurd counts
// saturates its totals rather than wrapping them to small ones.
func (m *Meter) tokens(u usage) {
	m.mu.Lock()
	m.s.PromptTokens = addSat(m.s.PromptTokens, u.PromptTokens)
	m.s.CompletionTokens = addSat(m.s.CompletionTokens, u.CompletionTokens)
	m.mu.Unlock()
}

func addSat(a, b uint64) uint64 {
	if s := a + b; s >= a {
		return s
	}
	return ^uint64(0)
}

// Snapshot is a copy of the counts, with the latency quantiles.
func (m *Meter) Snapshot() Snapshot {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.s
	s.LatencyP50 = m.quantile(50)
	s.LatencyP95 = m.quantile(95)
	return s
}

// quantile is the bound of the bucket holding the pct-th percentile: the
// smallest bound with at least pct % of the requests at or below it.
func (m *Meter) quantile(pct uint64) time.Duration {
	if m.s.Requests == 0 {
		return 0
	}
	need := (m.s.Requests*pct + 99) / 100
	var seen uint64
	for i, n := range m.latency {
		seen += n
		if seen >= need {
			if i == len(latencyBounds) {
				return time.Duration(latencyBounds[len(latencyBounds)-1]+1) * time.Millisecond
			}
			return time.Duration(latencyBounds[i]) * time.Millisecond
		}
	}
	return 0
}
