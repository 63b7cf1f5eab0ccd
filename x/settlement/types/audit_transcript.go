package types

import (
	"github.com/idlegpu/idlegpu/x/settlement/audit"
)

// AuditTranscript is a provider's memwalk transcript with its Merkle tree:
// the RFC 6962 tree (merkle.go) over the lane states, a perfect binary tree
// since the leaf count is a power of two. The agent builds it once per
// audit and opens the sampled leaves from it; the chain never builds one.
type AuditTranscript struct {
	states audit.States
	// levels[0] holds the leaf hashes' parents, levels[len-1] the root;
	// leaf hashes themselves are recomputed on demand (half the memory).
	levels [][]byte
}

// Parallel runs f(0), …, f(n−1), in any order and as concurrently as it
// likes: the tree is the same. The agent passes one that uses all its
// CPUs; this package, part of the state machine, starts no goroutine.
type Parallel func(n int, f func(i int))

// Sequential is the Parallel that runs f in order on the caller's goroutine.
func Sequential(n int, f func(i int)) {
	for i := range n {
		f(i)
	}
}

// NewAuditTranscript hashes the states (Leaves() of them, a power of two,
// at least 2) into their tree, one hash after another.
func NewAuditTranscript(states audit.States) *AuditTranscript {
	return NewAuditTranscriptWith(states, Sequential)
}

// NewAuditTranscriptWith is NewAuditTranscript with each level's hashes
// spread by parallel.
func NewAuditTranscriptWith(states audit.States, parallel Parallel) *AuditTranscript {
	n := len(states) / audit.StateBytes
	t := &AuditTranscript{states: states}
	level := make([]byte, n/2*HashSize)
	parallel(n/2, func(i int) {
		copy(level[i*HashSize:], nodeHash(leafHash(states.Leaf(uint64(2*i))), leafHash(states.Leaf(uint64(2*i+1)))))
	})
	t.levels = append(t.levels, level)
	for len(level) > HashSize {
		prev := level
		level = make([]byte, len(prev)/2)
		parallel(len(level)/HashSize, func(i int) {
			copy(level[i*HashSize:], nodeHash(prev[2*i*HashSize:(2*i+1)*HashSize], prev[(2*i+1)*HashSize:(2*i+2)*HashSize]))
		})
		t.levels = append(t.levels, level)
	}
	return t
}

// Root is the transcript's Merkle root, the audit's answer.
func (t *AuditTranscript) Root() []byte { return t.levels[len(t.levels)-1] }

// Path is leaf i's audit path, leaf side first.
func (t *AuditTranscript) Path(i uint64) [][]byte {
	path := [][]byte{leafHash(t.states.Leaf(i ^ 1))}
	for _, level := range t.levels[:len(t.levels)-1] {
		i >>= 1
		sib := i ^ 1
		path = append(path, level[sib*HashSize:(sib+1)*HashSize])
	}
	return path
}

// Opening opens leaf i for the chain: its state and path and, unless it is
// its lane's first segment, its predecessor's.
func (t *AuditTranscript) Opening(s audit.Shape, i uint64) AuditOpening {
	o := AuditOpening{LeafIndex: i, State: t.states.Leaf(i), Path: t.Path(i)}
	if s.NeedsPrev(i) {
		o.PrevState, o.PrevPath = t.states.Leaf(i-1), t.Path(i-1)
	}
	return o
}
