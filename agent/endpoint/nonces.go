package endpoint

import (
	"sync"
	"time"
)

// nonces remembers the nonces seen within MaxSkew: an older request is
// refused for its timestamp anyway, so the set stays bounded by the request
// rate over MaxSkew.
type nonces struct {
	mu   sync.Mutex
	seen map[string]time.Time // nonce → when it stops mattering
}

func newNonces() *nonces { return &nonces{seen: map[string]time.Time{}} }

// use records a nonce and reports false if it was already used.
func (n *nonces) use(key string, ts time.Time, now time.Time) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	for k, until := range n.seen {
		if now.After(until) {
			delete(n.seen, k)
		}
	}
	if _, dup := n.seen[key]; dup {
		return false
	}
	n.seen[key] = ts.Add(MaxSkew)
	return true
}
