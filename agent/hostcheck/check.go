// Package hostcheck judges whether this machine can run leased jobs now:
// the job runner answers, the GPU backend reads, the disks have room. The
// running agent withdraws its offers while a check fails, and `run` and
// `doctor` share Fatal, the one rule for what stops the agent at start.
package hostcheck

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/idlegpu/idlegpu/agent/gpu"
)

// Parts of the machine a check covers.
const (
	PartRunner = "runner"
	PartGPU    = "gpu"
	PartDisk   = "disk"
)

// MinFreeBytes is the free space each state and work disk keeps: below it
// sample logs and job logs stop being written.
const MinFreeBytes = 1 << 30

// Result is one part's verdict; Err nil is healthy.
type Result struct {
	Part   string `json:"part"`
	Detail string `json:"detail"`
	Err    error  `json:"-"`
}

// OK reports a healthy part.
func (r Result) OK() bool { return r.Err == nil }

// String is the part and what is wrong with it, or that it is ok.
func (r Result) String() string {
	if r.Err != nil {
		return r.Part + ": " + r.Err.Error()
	}
	return r.Part + ": " + r.Detail
}

// Pinger answers whether the job runner's daemon is up (docker: the Engine
// API's ping).
type Pinger func(ctx context.Context) error

// Checker checks the parts of a machine that running jobs need.
type Checker struct {
	// Runner is the runner's backend name; Ping is nil for one with no
	// daemon to ask (process).
	Runner string
	Ping   Pinger
	// GPUs must list its devices and read each of them.
	GPUs gpu.Backend
	// Dirs are the state and work directories; each keeps MinFree free.
	Dirs    []string
	MinFree uint64
	// Free measures a directory's free bytes (FreeBytes when nil).
	Free func(dir string) (uint64, error)
}

// Run checks every part, in a fixed order: runner, gpu, disk.
func (c Checker) Run(ctx context.Context) []Result {
	return []Result{c.runner(ctx), c.gpus(ctx), c.disks()}
}

func (c Checker) runner(ctx context.Context) Result {
	r := Result{Part: PartRunner, Detail: c.Runner + ": no daemon to ask"}
	if c.Ping == nil {
		return r
	}
	if err := c.Ping(ctx); err != nil {
		r.Err = fmt.Errorf("%s daemon not answering: %w", c.Runner, err)
		return r
	}
	r.Detail = c.Runner + " daemon answers"
	return r
}

func (c Checker) gpus(ctx context.Context) Result {
	r := Result{Part: PartGPU}
	if c.GPUs == nil {
		r.Err = errors.New("no GPU backend")
		return r
	}
	devs, err := c.GPUs.Devices(ctx)
	if err == nil && len(devs) == 0 {
		err = errors.New("no GPUs")
	}
	if err != nil {
		r.Err = fmt.Errorf("%s: %w", c.GPUs.Name(), err)
		return r
	}
	for _, d := range devs {
		if _, err := c.GPUs.Read(ctx, d.UUID); err != nil {
			r.Err = fmt.Errorf("%s: read %s: %w", c.GPUs.Name(), d.UUID, err)
			return r
		}
	}
	r.Detail = fmt.Sprintf("%s: %d GPUs read", c.GPUs.Name(), len(devs))
	return r
}

func (c Checker) disks() Result {
	r := Result{Part: PartDisk}
	free := c.Free
	if free == nil {
		free = FreeBytes
	}
	var ok []string
	for _, dir := range c.Dirs {
		n, err := free(dir)
		switch {
		case err != nil:
			r.Err = fmt.Errorf("%s: %w", dir, err)
		case n < c.MinFree:
			r.Err = fmt.Errorf("%s: %d MiB free, below %d MiB", dir, n>>20, c.MinFree>>20)
		default:
			ok = append(ok, fmt.Sprintf("%s %d MiB free", dir, n>>20))
			continue
		}
		return r
	}
	r.Detail = strings.Join(ok, ", ")
	return r
}

// Failing is the results that failed.
func Failing(rs []Result) []Result {
	var out []Result
	for _, r := range rs {
		if !r.OK() {
			out = append(out, r)
		}
	}
	return out
}

// IsFatal is the one rule `run` and `doctor` share. Only a GPU backend that
// cannot list or read its GPUs stops the agent at start: nothing can be
// sampled or proven. A runner daemon that does not answer or a full disk
// does not: the agent starts with its offers withdrawn (it still answers
// audits, whose misses are slashed, and proves leases already running) and
// restores them once the part is healthy again.
func IsFatal(r Result) bool { return !r.OK() && r.Part == PartGPU }

// Fatal is the error that stops `run` at start, nil when none.
func Fatal(rs []Result) error {
	var errs []error
	for _, r := range rs {
		if IsFatal(r) {
			errs = append(errs, errors.New(r.String()))
		}
	}
	return errors.Join(errs...)
}
