package intake

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/idlegpu/idlegpu/agent/runner"
	"github.com/idlegpu/idlegpu/endpoint"
	settlementtypes "github.com/idlegpu/idlegpu/x/settlement/types"
)

// Status reports a lease's job.
func (in *Intake) Status(ctx context.Context, leaseID uint64) (endpoint.JobStatus, error) {
	rec, ok := in.Records.Get(leaseID)
	if !ok {
		p, preparing := in.prep.get(leaseID)
		if !preparing {
			return endpoint.JobStatus{}, endpoint.ErrNoJob
		}
		st := endpoint.JobStatus{LeaseID: leaseID, ExitCode: -1, Refused: p.Refused}
		if p.Refused == "" {
			st.Preparing = p.What
		}
		if l, err := in.Chain.Lease(ctx, leaseID); err == nil {
			st.Lease = l.Status.String()
		}
		return st, nil
	}
	st := endpoint.JobStatus{LeaseID: leaseID, Lease: rec.Status, ExitCode: -1}
	if l, err := in.Chain.Lease(ctx, leaseID); err == nil {
		st.Lease = l.Status.String()
	}
	if p, err := in.Chain.Progress(ctx, leaseID); err == nil {
		st.EpochsProven = p.ProvenEpochs
	}
	// A running job has no exit code yet (-1); an ended one reports its
	// own, also once its handle is dropped.
	l, _ := in.Leases.Get(leaseID)
	js := l.Ended
	if l.Job != nil {
		s := l.Job.Status()
		js = &s
	}
	if js != nil {
		st.Running, st.Error = js.Running, js.Err
		if !js.Running {
			st.Exited, st.ExitCode = true, js.ExitCode
		}
	}
	return st, nil
}

// Logs opens a lease's job log: the live job's, or what an ended or
// earlier job left in <work_dir>/lease-<id> (job.log; the docker runner's
// older part in job.log.1, read first by runner.OpenJobLog).
func (in *Intake) Logs(leaseID uint64) (io.ReadCloser, error) {
	if _, ok := in.Records.Get(leaseID); !ok {
		return nil, endpoint.ErrNoJob
	}
	if job := in.Leases.Job(leaseID); job != nil {
		return job.Logs()
	}
	f, err := runner.OpenJobLog(filepath.Join(in.WorkDir, fmt.Sprintf("lease-%d", leaseID)))
	if errors.Is(err, os.ErrNotExist) {
		return nil, endpoint.ErrNoJob
	}
	return f, err
}

// Samples are an epoch's recorded samples.
func (in *Intake) Samples(leaseID, epoch uint64) ([]settlementtypes.Sample, bool) {
	return in.Prover.Samples(leaseID, epoch)
}
