// Package daemon is the agent's long-running core: it follows the chain,
// samples the leased GPUs, keeps the samples durable, and proves each
// ended epoch once.
package prover

import (
	"sort"
	"sync"
	"time"

	"github.com/idlegpu/idlegpu/agent/proof"
)

// Headers keeps the recent block headers a proof can bind to as its
// challenge: x/settlement accepts only the header hash of a block whose time
// lies inside the epoch's window, from its own ring of recent headers.
type Headers struct {
	mu    sync.Mutex
	keep  time.Duration
	floor time.Time      // never forget headers from here on (zero: none)
	list  []proof.Header // ascending height
}

// NewHeaders keeps headers for keep (epoch length + proof grace is enough).
func NewHeaders(keep time.Duration) *Headers { return &Headers{keep: keep} }

// Add records a header and forgets those older than keep before it.
func (h *Headers) Add(hd proof.Header) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if n := len(h.list); n > 0 && hd.Height <= h.list[n-1].Height {
		return // already seen (a catch-up replay)
	}
	h.list = append(h.list, hd)
	// Drop the expired prefix, but nothing an unproven epoch still needs;
	// reslicing lets append reuse the array.
	cutoff := hd.Time.Add(-h.keep)
	if !h.floor.IsZero() && h.floor.Before(cutoff) {
		cutoff = h.floor
	}
	cut := sort.Search(len(h.list), func(i int) bool { return !h.list[i].Time.Before(cutoff) })
	h.list = h.list[cut:]
}

// KeepFrom keeps every header from t on, whatever its age: the oldest
// window an unproven epoch has. After a chain halt longer than keep, the
// epoch the halt cut into is still proven with a header from before it.
func (h *Headers) KeepFrom(t time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.floor = t
}

// In returns the first header whose time lies in [from, to]. Block times
// grow with height, so the ring is sorted by time and a binary search finds it.
func (h *Headers) In(from, to time.Time) (proof.Header, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	i := sort.Search(len(h.list), func(i int) bool { return !h.list[i].Time.Before(from) })
	if i == len(h.list) || h.list[i].Time.After(to) {
		return proof.Header{}, false
	}
	return h.list[i], true
}

// Empty reports whether the chain made no block in [from, to], as far as
// the recorded headers prove it: two consecutive heights on either side
// of the window. A gap in what was recorded (an agent restarted after the
// halt) proves nothing.
func (h *Headers) Empty(from, to time.Time) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	i := sort.Search(len(h.list), func(i int) bool { return !h.list[i].Time.Before(from) })
	return i > 0 && i < len(h.list) && h.list[i].Time.After(to) && h.list[i].Height == h.list[i-1].Height+1
}

// Latest returns the newest header.
func (h *Headers) Latest() (proof.Header, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.list) == 0 {
		return proof.Header{}, false
	}
	return h.list[len(h.list)-1], true
}
