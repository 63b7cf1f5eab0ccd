// Package audit answers the chain's GPU audits (x/settlement MsgOpenAudit):
// it runs the named workload on the audited GPU and returns its 32-byte
// result. Real GPUs run it through the CUDA driver API, loaded at run time
// like NVML; simulated GPUs run the CPU reference at the speed their model
// claims. agent/README.md, "Audits", describes the whole flow.
package audit

import (
	"context"
	"errors"

	settlementaudit "github.com/idlegpu/idlegpu/x/settlement/audit"
)

// Result is a workload's answer.
type Result = [settlementaudit.ResultSize]byte

// Runner computes an audit workload on one GPU.
type Runner interface {
	// Name says where the work runs ("cuda", "cpu-reference").
	Name() string
	// Run computes workload for seed and units on the GPU with uuid. It
	// stops with ctx's error when ctx ends.
	Run(ctx context.Context, uuid, workload string, seed []byte, units uint64) (Result, error)
}

// ErrUnavailable means the runner cannot run on this machine (no CUDA
// driver); the daemon still starts, and each audit it cannot answer is
// logged and metered.
var ErrUnavailable = errors.New("audit runner unavailable")

// ErrUnknownWorkload is a workload this agent does not implement.
var ErrUnknownWorkload = errors.New("unknown audit workload")

// ErrNoDevice is an audited GPU the driver does not show.
var ErrNoDevice = errors.New("audited GPU not found")
