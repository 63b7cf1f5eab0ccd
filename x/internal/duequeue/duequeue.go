// Package duequeue drains the chain's queues of timed work (clearings,
// start timeouts, missed epochs, audit steps, pruning, unbondings): every
// block takes at most a bounded number of due entries, oldest first, and
// leaves the rest for the next block (docs/design.md#determinism).
package duequeue

import (
	"cosmossdk.io/collections"
)

// Iterator is what Take reads: a collections iterator over a queue whose
// key order is due order (KeySet and Map iterators both fit).
type Iterator[K any] interface {
	Valid() bool
	Next()
	Key() (K, error)
	Close() error
}

// Take collects the keys of the due entries at the head of the queue, in
// order, at most limit of them, and closes the iterator. due must hold for
// a prefix of the queue: the walk stops at the first entry that is not due.
// Keys are collected before the caller writes anything, because an open
// iterator must not see its store change.
func Take[K any](it Iterator[K], limit uint32, due func(K) bool) ([]K, error) {
	defer it.Close()
	var keys []K
	for ; it.Valid() && uint32(len(keys)) < limit; it.Next() {
		key, err := it.Key()
		if err != nil {
			return nil, err
		}
		if !due(key) {
			break
		}
		keys = append(keys, key)
	}
	return keys, nil
}

// Entries lets Take judge a Map's entries by their values: its keys are
// the entries (key and value).
func Entries[K, V any](it collections.Iterator[K, V]) Iterator[collections.KeyValue[K, V]] {
	return entries[K, V]{it}
}

type entries[K, V any] struct{ collections.Iterator[K, V] }

func (e entries[K, V]) Key() (collections.KeyValue[K, V], error) { return e.KeyValue() }
