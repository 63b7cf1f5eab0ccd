package audit

import (
	"context"
	"encoding/binary"
	"fmt"
	"runtime"
	"sync"
)

// States is a whole transcript's leaves: Leaves() lane states of
// StateBytes each, leaf i = lane i/Segments after segment i%Segments + 1,
// big-endian words. It is what a device hands back to the host.
type States []byte

// LeafIndex is the transcript position of lane's state after segment seg
// (0-based).
func (s Shape) LeafIndex(lane, seg uint32) uint64 {
	return uint64(lane)*uint64(s.Segments) + uint64(seg)
}

// Leaf returns leaf i's 32 bytes.
func (st States) Leaf(i uint64) []byte { return st[i*StateBytes : (i+1)*StateBytes] }

// Run is the CPU reference of the whole workload: the cache, the full
// table, then every lane's walk, recording each segment's end state. Lanes
// run on all CPUs; the result does not depend on how many. It stops with
// ctx's error when ctx ends.
func Run(ctx context.Context, seed []byte, s Shape) (States, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	c, err := NewCache(seed)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return runWalk(ctx, seed, s, newTableParallel(c, s.TableItems))
}

// newTableParallel is NewTable on all CPUs.
func newTableParallel(c Cache, n uint32) Table {
	t := make(Table, int(n)*ItemWords)
	workers := runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var it [ItemWords]uint32
			for j := uint32(uint64(n) * uint64(w) / uint64(workers)); j < uint32(uint64(n)*uint64(w+1)/uint64(workers)); j++ {
				c.Item(j, &it)
				copy(t[int(j)*ItemWords:], it[:])
			}
		}()
	}
	wg.Wait()
	return t
}

// runWalk runs every lane over the table t, on all CPUs.
func runWalk(ctx context.Context, seed []byte, s Shape, t Table) (States, error) {
	out := make(States, s.Leaves()*StateBytes)
	workers := min(runtime.GOMAXPROCS(0), int(s.Lanes))
	lanes := make(chan uint32)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for lane := range lanes {
				st := LaneStart(seed, lane)
				for seg := range s.Segments {
					st = t.Segment(st, seg*s.SegmentSteps, s.SegmentSteps)
					leaf := out.Leaf(s.LeafIndex(lane, seg))
					for w, v := range st {
						binary.BigEndian.PutUint32(leaf[4*w:], v)
					}
				}
			}
		}()
	}
	var cerr error
	for lane := range s.Lanes {
		if cerr = ctx.Err(); cerr != nil {
			break
		}
		lanes <- lane
	}
	close(lanes)
	wg.Wait()
	if cerr != nil {
		return nil, cerr
	}
	return out, nil
}

// Opening is what the chain needs to check one sampled leaf: the leaf's
// state and the state it started from (the lane's start for a lane's first
// segment), each proved in the transcript by the caller.
type Opening struct {
	// Index is the sampled leaf.
	Index uint64
	// State is the leaf: the lane's state after the segment.
	State State
	// Prev is the lane's state before the segment (ignored, and derived
	// from the seed, for a lane's first segment).
	Prev State
}

// CheckSegment recomputes sampled leaf o.Index from its predecessor,
// deriving each table read from the cache, and reports whether the
// transcript's state is the right one. It costs SegmentSteps item
// derivations (Parents cache reads each), whatever the input.
func CheckSegment(c Cache, seed []byte, s Shape, o Opening) (bool, error) {
	if o.Index >= s.Leaves() {
		return false, fmt.Errorf("leaf %d outside a transcript of %d", o.Index, s.Leaves())
	}
	lane, seg := uint32(o.Index/uint64(s.Segments)), uint32(o.Index%uint64(s.Segments))
	prev := o.Prev
	if seg == 0 {
		prev = LaneStart(seed, lane)
	}
	return c.LightSegment(prev, seg*s.SegmentSteps, s.SegmentSteps, s.TableItems) == o.State, nil
}

// NeedsPrev reports whether checking leaf i needs its predecessor revealed
// (every leaf but a lane's first).
func (s Shape) NeedsPrev(i uint64) bool { return i%uint64(s.Segments) != 0 }
