package duequeue

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

// sliceIter is a queue in key order.
type sliceIter struct {
	keys   []uint64
	i      int
	bad    int // index whose key fails to decode, -1 for none
	closed bool
}

func (s *sliceIter) Valid() bool { return s.i < len(s.keys) }
func (s *sliceIter) Next()       { s.i++ }
func (s *sliceIter) Close() error {
	s.closed = true
	return nil
}

func (s *sliceIter) Key() (uint64, error) {
	if s.i == s.bad {
		return 0, errors.New("corrupt key")
	}
	return s.keys[s.i], nil
}

func TestTake(t *testing.T) {
	atOrBefore := func(now uint64) func(uint64) bool { return func(k uint64) bool { return k <= now } }
	for _, tc := range []struct {
		name  string
		queue []uint64
		limit uint32
		now   uint64
		want  []uint64
	}{
		{"empty queue", nil, 10, 5, nil},
		{"nothing due yet", []uint64{6, 7}, 10, 5, nil},
		{"an entry due exactly now is due", []uint64{4, 5, 6}, 10, 5, []uint64{4, 5}},
		{"the limit leaves the rest for the next block", []uint64{1, 2, 3, 4}, 3, 9, []uint64{1, 2, 3}},
		{"limit zero takes nothing", []uint64{1}, 0, 9, nil},
		{"entries after now are never taken, even under the limit", []uint64{1, 9, 10}, 5, 9, []uint64{1, 9}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			it := &sliceIter{keys: tc.queue, bad: -1}
			got, err := Take[uint64](it, tc.limit, atOrBefore(tc.now))
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
			require.True(t, it.closed, "the iterator is closed before the caller writes")
		})
	}
}

func TestTakeReportsACorruptKey(t *testing.T) {
	it := &sliceIter{keys: []uint64{1, 2, 3}, bad: 1}
	got, err := Take[uint64](it, 10, func(uint64) bool { return true })
	require.EqualError(t, err, "corrupt key")
	require.Nil(t, got)
	require.True(t, it.closed)
}
