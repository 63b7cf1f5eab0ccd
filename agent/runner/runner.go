// Package runner runs leased jobs: process (a local command, for tests and
// the demo) and docker (the Docker Engine API). Both expose only the leased
// GPUs to the job, keep its logs, and tell which processes are the job's so
// telemetry can count them on each GPU.
package runner

import (
	"context"
	"errors"
	"io"
)

// Spec is what a lease's job needs to run.
type Spec struct {
	// LeaseID names the job (one job per lease).
	LeaseID uint64
	// Image is the image reference pinned by digest (docker runner).
	Image string
	// Command and Env come from the renter's manifest.
	Command []string
	Env     map[string]string
	// GPUs are the leased GPU UUIDs: the only ones the job sees.
	GPUs []string
	// CPUs, MemoryBytes and ShmBytes bound the job's resources (0: the runner's default).
	CPUs        float64
	MemoryBytes int64
	ShmBytes    int64
}

// Status is where a job stands.
type Status struct {
	Running  bool
	ExitCode int
	// Err says why a job could not run or was stopped, if it did not exit by itself.
	Err string
}

// Job is a started job.
type Job interface {
	// PIDs are the host PIDs of the job's processes now (what NVML lists on a GPU).
	PIDs() []uint32
	// Done is closed when the job has ended.
	Done() <-chan struct{}
	// Status reports the job's state.
	Status() Status
	// Logs opens the job's combined output from the start.
	Logs() (io.ReadCloser, error)
	// Stop ends the job: a polite signal, then a kill after the grace period,
	// then cleanup. Stopping an ended job is a no-op.
	Stop(ctx context.Context) error
}

// Runner starts jobs.
type Runner interface {
	// Name is "process" or "docker".
	Name() string
	// Start runs the job of a lease.
	Start(ctx context.Context, spec Spec) (Job, error)
}

// ErrInvalidSpec is returned for a spec a runner refuses.
var ErrInvalidSpec = errors.New("invalid job spec")
