// Package audit defines the audit workloads: deterministic, GPU-sized
// computations seeded by an auditor (x/settlement MsgOpenAudit). The provider's
// agent runs one on the audited GPU and answers with its 32-byte result; the
// auditor computes the same result ahead of time and commits to it.
//
// A workload is a specification first: any implementation (a CUDA kernel in
// the agent, the CPU reference here) must produce the same bytes, which the
// golden vectors in testdata pin down.
package audit

import (
	"context"
	"fmt"
)

// ResultSize is the size of every workload result.
const ResultSize = 32

// Workload is one audit computation.
type Workload interface {
	// Name is the identifier MsgOpenAudit carries.
	Name() string
	// Run computes the result for seed and units. It stops early with the
	// context's error when ctx is done.
	Run(ctx context.Context, seed []byte, units uint64) ([ResultSize]byte, error)
}

// Known lists the workloads the chain accepts in MsgOpenAudit.
var Known = []string{MatMulV1Name}

// IsKnown reports whether the chain accepts a workload name.
func IsKnown(name string) bool {
	for _, k := range Known {
		if k == name {
			return true
		}
	}
	return false
}

// Reference returns the CPU reference implementation of a known workload.
func Reference(name string) (Workload, error) {
	switch name {
	case MatMulV1Name:
		return MatMulV1{}, nil
	}
	return nil, fmt.Errorf("unknown audit workload %q", name)
}
