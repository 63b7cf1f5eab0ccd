package endpoint

import (
	"container/heap"
	"errors"
	"sync"
	"time"
)

// maxNonces bounds the nonces remembered at once: with per-renter rate
// limits it is never reached by honest renters.
const maxNonces = 1 << 20

// ErrBusy is a request the endpoint cannot take now (nonce store full).
var ErrBusy = errors.New("endpoint busy, retry later")

// nonces remembers the nonces seen within MaxSkew: an older request is
// refused for its timestamp anyway. A min-heap by expiry forgets them in
// O(log n) each, instead of scanning every entry on every request.
type nonces struct {
	mu    sync.Mutex
	max   int
	seen  map[string]struct{}
	queue expiryHeap
}

type nonceEntry struct {
	key   string
	until time.Time // when it stops mattering
}

type expiryHeap []nonceEntry

func (h expiryHeap) Len() int           { return len(h) }
func (h expiryHeap) Less(i, j int) bool { return h[i].until.Before(h[j].until) }
func (h expiryHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *expiryHeap) Push(x any)        { *h = append(*h, x.(nonceEntry)) }
func (h *expiryHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	*h = old[:len(old)-1]
	return e
}

func newNonces(max int) *nonces { return &nonces{max: max, seen: map[string]struct{}{}} }

// use records a nonce and reports false if it was already used; a full
// store answers ErrBusy rather than forget a nonce that still matters.
func (n *nonces) use(key string, ts time.Time, now time.Time) (bool, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	for len(n.queue) > 0 && now.After(n.queue[0].until) {
		delete(n.seen, heap.Pop(&n.queue).(nonceEntry).key)
	}
	if _, dup := n.seen[key]; dup {
		return false, nil
	}
	if len(n.seen) >= n.max {
		return false, ErrBusy
	}
	n.seen[key] = struct{}{}
	heap.Push(&n.queue, nonceEntry{key: key, until: ts.Add(MaxSkew)})
	return true, nil
}

// len is how many nonces are remembered.
func (n *nonces) len() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return len(n.seen)
}
