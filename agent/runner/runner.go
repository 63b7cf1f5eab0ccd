// Package runner runs leased jobs: process (a local command, for tests and
// the demo) and docker (the Docker Engine API). Both expose only the leased
// GPUs to the job, keep its logs, and tell which processes are the job's so
// telemetry can count them on each GPU.
package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/idlegpu/idlegpu/endpoint"
)

// Spec is what a lease's job needs to run.
type Spec struct {
	// LeaseID names the job (one job per lease).
	LeaseID uint64
	// Image is the job's image reference (docker runner).
	Image string
	// ImageDigest is the chain's image_digest: the docker runner runs
	// exactly repo@ImageDigest, whatever tag or digest Image carries, and
	// refuses an Image pinned to another digest.
	ImageDigest string
	// Command and Env come from the renter's manifest.
	Command []string
	Env     map[string]string
	// GPUs are the leased GPU UUIDs: the only ones the job sees.
	GPUs []string
	// CPUs, MemoryBytes and ShmBytes bound the job's resources (0: the runner's default).
	CPUs        float64
	MemoryBytes int64
	ShmBytes    int64
	// DiskBytes bounds the container's writable layer (0: the runner's default).
	DiskBytes int64
	// EgressMbps is the job's internet egress in megabits per second (all
	// its GPUs together): 0 runs it with no network at all; above 0 it is
	// attached to the runner's egress network, which reaches the internet
	// only (never the host, the agent, other jobs, link-local or private
	// ranges), shaped to this rate.
	EgressMbps uint32
	// ServicePort is the container port of the job's inbound service (0:
	// none): the docker runner attaches it to its service network, where
	// only the agent's ingress reaches it (Docker.ServiceAddr).
	ServicePort uint16
	// Mounts are host directories the job sees (the renter's fetched
	// inputs read-only, its output directory writable).
	Mounts []Mount
	// AllowRoot lets the job run as the image's own user, root included
	// (the provider's policy allows it and the renter asked); otherwise
	// it runs as an unprivileged user.
	AllowRoot bool
}

// Mount is a host directory bound into a job.
type Mount struct {
	// Source is an absolute host path; Target an absolute path in the job.
	Source, Target string
	ReadOnly       bool
}

// Status is where a job stands.
type Status struct {
	Running bool
	// Exited says the job's process ended and ExitCode is its exit code;
	// false while it runs and when the code is unknown.
	Exited   bool
	ExitCode int
	// Err says why a job could not run or was stopped, if it did not exit by itself.
	Err string
}

// StopTimeout is how long the agent waits for one job's Stop: past the
// runners' grace before the kill (docker 10 s, process 5 s by default)
// and their cleanup.
const StopTimeout = 30 * time.Second

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
	// Adopt finds the job of a lease that an earlier run of the agent started
	// and that is still running, and returns it as if Start had returned it
	// (PIDs, Done, Status, Logs, Stop all work). ErrNotRunning when there is
	// no such live job (it ended while the agent was away, or never started).
	Adopt(ctx context.Context, spec Spec) (Job, error)
}

// ErrInvalidSpec is returned for a spec a runner refuses.
var ErrInvalidSpec = errors.New("invalid job spec")

// ErrNotRunning is returned by Adopt when the lease has no live job to adopt.
var ErrNotRunning = errors.New("job is not running")

// validateGPUsAndEnv is the check every runner makes: well-formed GPU ids
// and environment names, none of them reserved.
func (spec Spec) validateGPUsAndEnv() error {
	for _, g := range spec.GPUs {
		if g == "" || strings.ContainsAny(g, ", \t\n=") {
			return fmt.Errorf("%w: lease %d has a malformed GPU id %q", ErrInvalidSpec, spec.LeaseID, g)
		}
	}
	for k := range spec.Env {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			return fmt.Errorf("%w: lease %d has a malformed environment variable %q", ErrInvalidSpec, spec.LeaseID, k)
		}
		if endpoint.ReservedEnv(k) {
			return fmt.Errorf("%w: lease %d may not set %s", ErrInvalidSpec, spec.LeaseID, k)
		}
	}
	return nil
}

// leaseEnv is the manifest's variables (sorted, so a job's environment is
// reproducible) plus the GPU selection and the lease id. The selection is
// always set, so an image's or a host's own value (often "all") never applies.
func (spec Spec) leaseEnv() []string {
	keys := make([]string, 0, len(spec.Env))
	for k := range spec.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	env := make([]string, 0, len(keys)+3)
	for _, k := range keys {
		env = append(env, k+"="+spec.Env[k])
	}
	gpus := strings.Join(spec.GPUs, ",")
	return append(env, "CUDA_VISIBLE_DEVICES="+gpus, "NVIDIA_VISIBLE_DEVICES="+gpus,
		"IDLEGPU_LEASE_ID="+strconv.FormatUint(spec.LeaseID, 10))
}
