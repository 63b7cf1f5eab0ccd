package policy

import "sync"

// Limits tracks the thermal and power limits per GPU: any GPU over a limit
// makes the provider refuse new work; one over it for preempt_after
// consecutive samples asks for its BRONZE leases to be preempted.
type Limits struct {
	mu       sync.Mutex
	maxTempC uint32
	maxPowMW uint64
	after    int
	over     map[string]int
}

// NewLimits returns a tracker (a zero limit is off).
func NewLimits(maxTempC, maxPowerW uint32, preemptAfter int) *Limits {
	return &Limits{maxTempC: maxTempC, maxPowMW: uint64(maxPowerW) * 1000, after: max(preemptAfter, 1), over: map[string]int{}}
}

// Observe records one sample of a GPU and reports whether that GPU's BRONZE
// leases must be preempted now (the limit held for preempt_after samples).
func (l *Limits) Observe(uuid string, tempC uint32, powerMW uint32) (preempt bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	hot := (l.maxTempC > 0 && tempC > l.maxTempC) || (l.maxPowMW > 0 && uint64(powerMW) > l.maxPowMW)
	if !hot {
		delete(l.over, uuid)
		return false
	}
	l.over[uuid]++
	return l.over[uuid] >= l.after
}

// Hot reports whether any GPU is over a limit: no new work then.
func (l *Limits) Hot() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.over) > 0
}
