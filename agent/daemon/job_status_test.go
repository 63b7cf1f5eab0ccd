package daemon

import (
	"context"
	"io"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/agent/records"
	"github.com/idlegpu/idlegpu/agent/runner"
)

// statusJob is a job whose status the test sets.
type statusJob struct {
	status runner.Status
	done   chan struct{}
}

func (j *statusJob) PIDs() []uint32                 { return nil }
func (j *statusJob) Done() <-chan struct{}          { return j.done }
func (j *statusJob) Status() runner.Status          { return j.status }
func (j *statusJob) Logs() (io.ReadCloser, error)   { return nil, io.EOF }
func (j *statusJob) Stop(ctx context.Context) error { return nil }

// The renter's status has no exit code (-1) while the job runs, and the
// job's own after it exited, also once the daemon dropped its handle
// (it said -1 for a job that exited 0).
func TestJobStatusExitCode(t *testing.T) {
	d, _ := leaseDaemon(t, &fakeRunner{jobs: map[uint64]*fakeJob{}}, &fakeChain{})
	const id = 9
	require.NoError(t, d.records.Put(records.Record{LeaseID: id, JobID: 109, GPUs: []string{"GPU-a"}, Started: true}))
	job := &statusJob{status: runner.Status{Running: true}, done: make(chan struct{})}
	d.reg.SetJob(id, job)
	st, err := d.jobs().Status(context.Background(), id)
	require.NoError(t, err)
	require.True(t, st.Running)
	require.False(t, st.Exited)
	require.Equal(t, -1, st.ExitCode, "no exit code while running")

	job.status = runner.Status{Exited: true, ExitCode: 0}
	close(job.done)
	st, err = d.jobs().Status(context.Background(), id)
	require.NoError(t, err)
	require.False(t, st.Running)
	require.True(t, st.Exited)
	require.Equal(t, 0, st.ExitCode)

	require.NoError(t, d.stopJob(context.Background(), id, "the job exited"))
	require.Nil(t, d.reg.Job(id), "the handle is dropped")
	st, err = d.jobs().Status(context.Background(), id)
	require.NoError(t, err)
	require.False(t, st.Running)
	require.True(t, st.Exited)
	require.Equal(t, 0, st.ExitCode, "the exit code outlives the handle")
}
