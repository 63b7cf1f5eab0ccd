// Package collutil holds small helpers over cosmossdk.io/collections that
// the market modules share.
package collutil

import (
	"context"

	"cosmossdk.io/collections"
)

// Values reads every value of a map in key order (genesis export and
// invariants; never in a block's hot path).
func Values[K, V any](ctx context.Context, m collections.Map[K, V]) ([]V, error) {
	it, err := m.Iterate(ctx, nil)
	if err != nil {
		return nil, err
	}
	return it.Values()
}
