// Package audit answers the chain's GPU audits (x/settlement MsgOpenAudit):
// it computes the idlegpu/memwalk/v1 transcript (x/settlement/audit) of the
// audit's seed and shape on the audited GPU, one 32-byte lane state per
// segment, from which the daemon builds the Merkle root it answers with.
// Real GPUs run it through the CUDA driver API, loaded at run time like
// NVML; simulated GPUs run the CPU reference, paced to the time their model
// claims. agent/README.md, "Audits", describes the whole flow.
package audit

import (
	"context"
	"errors"

	settlementaudit "github.com/idlegpu/idlegpu/x/settlement/audit"
)

// Runner computes an audit's transcript on one GPU.
type Runner interface {
	// Name says where the work runs ("cuda", "cpu-reference").
	Name() string
	// Run computes the memwalk/v1 transcript for seed and shape on the GPU
	// with uuid. It stops with ctx's error when ctx ends.
	Run(ctx context.Context, uuid string, seed []byte, shape settlementaudit.Shape) (settlementaudit.States, error)
}

// ErrUnavailable means the runner cannot run on this machine (no CUDA
// driver); the daemon still starts, and each audit it cannot answer is
// logged and metered.
var ErrUnavailable = errors.New("audit runner unavailable")

// ErrNoDevice is an audited GPU the driver does not show.
var ErrNoDevice = errors.New("audited GPU not found")

// ErrNoMemory is an audited GPU without the free memory the audit's table
// needs (another process holds some of it).
var ErrNoMemory = errors.New("audited GPU lacks the memory for the audit")
