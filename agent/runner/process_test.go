package runner

import (
	"context"
	"io"
	"os"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func logs(t *testing.T, j Job) string {
	t.Helper()
	r, err := j.Logs()
	require.NoError(t, err)
	defer r.Close()
	b, err := io.ReadAll(r)
	require.NoError(t, err)
	return string(b)
}

func TestProcessJobSeesOnlyItsGPUsAndEnds(t *testing.T) {
	t.Setenv("IDLEGPU_SECRET", "do-not-leak")
	p, err := NewProcess(t.TempDir())
	require.NoError(t, err)
	j, err := p.Start(context.Background(), Spec{LeaseID: 7, GPUs: []string{"GPU-a", "GPU-b"}, Env: map[string]string{"EPOCHS": "3"},
		Command: []string{"sh", "-c", `echo "cuda=$CUDA_VISIBLE_DEVICES nvidia=$NVIDIA_VISIBLE_DEVICES lease=$IDLEGPU_LEASE_ID epochs=$EPOCHS secret=$IDLEGPU_SECRET"; exit 3`}})
	require.NoError(t, err)
	<-j.Done()
	require.Equal(t, Status{ExitCode: 3}, j.Status())
	require.Equal(t, "cuda=GPU-a,GPU-b nvidia=GPU-a,GPU-b lease=7 epochs=3 secret=\n", logs(t, j))
	require.Empty(t, j.PIDs())
	require.NoError(t, j.Stop(context.Background()), "stopping an ended job is a no-op")
}

// TestProcessStopKillsTheWholeGroup: a job that forks and ignores SIGTERM
// is killed, children included, after the grace period.
func TestProcessStopKillsTheWholeGroup(t *testing.T) {
	p, err := NewProcess(t.TempDir())
	require.NoError(t, err)
	p.Grace = 300 * time.Millisecond
	j, err := p.Start(context.Background(), Spec{LeaseID: 8, GPUs: []string{"GPU-a"},
		Command: []string{"sh", "-c", `trap '' TERM; sleep 60 & sleep 60 & echo started; wait`}})
	require.NoError(t, err)
	require.Eventually(t, func() bool { return strings.Contains(logs(t, j), "started") && len(j.PIDs()) == 3 }, 5*time.Second, 20*time.Millisecond)
	pids := j.PIDs()
	require.True(t, j.Status().Running)

	start := time.Now()
	require.NoError(t, j.Stop(context.Background()))
	require.GreaterOrEqual(t, time.Since(start), 300*time.Millisecond, "SIGTERM was ignored: the grace period ran")
	st := j.Status()
	require.False(t, st.Running)
	require.Equal(t, "stopped", st.Err)
	for _, pid := range pids {
		require.Eventually(t, func() bool { return syscall.Kill(int(pid), 0) != nil }, 2*time.Second, 20*time.Millisecond, "pid %d survived", pid)
	}
	require.True(t, slices.Contains(pids, uint32(j.(*processJob).pgid)))
}

func TestProcessRejectsBadSpecs(t *testing.T) {
	p, err := NewProcess(t.TempDir())
	require.NoError(t, err)
	_, err = p.Start(context.Background(), Spec{LeaseID: 1, GPUs: []string{"GPU-a"}})
	require.ErrorIs(t, err, ErrInvalidSpec)
	_, err = p.Start(context.Background(), Spec{LeaseID: 1, Command: []string{"true"}})
	require.ErrorIs(t, err, ErrInvalidSpec)
	_, err = p.Start(context.Background(), Spec{LeaseID: 1, GPUs: []string{"GPU-a"}, Command: []string{"true"},
		Env: map[string]string{"NVIDIA_VISIBLE_DEVICES": "all"}})
	require.ErrorIs(t, err, ErrInvalidSpec, "the manifest may not widen the GPU selection")
	_, err = p.Start(context.Background(), Spec{LeaseID: 1, GPUs: []string{"GPU-a,GPU-b"}, Command: []string{"true"}})
	require.ErrorIs(t, err, ErrInvalidSpec, "one id may not smuggle in two")
	_, err = p.Start(context.Background(), Spec{LeaseID: 1, GPUs: []string{"GPU-a"}, Command: []string{"/nonexistent/binary"}})
	require.ErrorIs(t, err, os.ErrNotExist)
}
