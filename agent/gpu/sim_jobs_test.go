package gpu

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSimAttachJobs: the jobs the agent names are on their GPUs, as a
// driver would list them, until they are named no more.
func TestSimAttachJobs(t *testing.T) {
	s, _ := newTestSim(t, 3, 3)
	a, b, c := s.gpus[0].info.UUID, s.gpus[1].info.UUID, s.gpus[2].info.UUID
	s.AttachJobs([]JobProcs{{LeaseID: 1, GPUs: []string{a, b}, PIDs: []uint32{10, 11}}, {LeaseID: 2, GPUs: []string{c}, PIDs: []uint32{20}}})
	require.Equal(t, []uint32{10, 11}, simRead(t, s, a).PIDs)
	require.Equal(t, []uint32{10, 11}, simRead(t, s, b).PIDs)
	require.Equal(t, []uint32{20}, simRead(t, s, c).PIDs)

	// A process gone from lease 1's job, one new; lease 2's job ended.
	s.AttachJobs([]JobProcs{{LeaseID: 1, GPUs: []string{a, b}, PIDs: []uint32{11, 12}}})
	require.Equal(t, []uint32{11, 12}, simRead(t, s, a).PIDs)
	require.Equal(t, []uint32{11, 12}, simRead(t, s, b).PIDs)
	require.Empty(t, simRead(t, s, c).PIDs)
	require.Zero(t, simRead(t, s, c).UtilBps, "idle again")

	s.AttachJobs(nil)
	require.Empty(t, simRead(t, s, a).PIDs)
	require.Empty(t, s.attached)
}

// TestSimControlFile: the control file heats GPUs from outside the agent,
// applied each tick; without the file the overrides are cleared, and a
// broken one leaves them as they were.
func TestSimControlFile(t *testing.T) {
	ctl := filepath.Join(t.TempDir(), "control.json")
	c := newFakeClock()
	s, err := NewSim(SimConfig{Count: 2, Seed: 4, Clock: c.now, ControlFile: ctl})
	require.NoError(t, err)
	hot, cool := s.gpus[0].info.UUID, s.gpus[1].info.UUID

	require.NoError(t, os.WriteFile(ctl, fmt.Appendf(nil, `{%q: {"temp_c": 95}}`, hot), 0o600))
	s.AttachJobs(nil)
	require.Equal(t, uint32(95), simRead(t, s, hot).TempC)
	require.LessOrEqual(t, simRead(t, s, cool).TempC, uint32(40))

	require.NoError(t, os.WriteFile(ctl, []byte("{not json"), 0o600))
	s.AttachJobs(nil)
	require.Equal(t, uint32(95), simRead(t, s, hot).TempC, "a broken file changes nothing")

	require.NoError(t, os.Remove(ctl))
	s.AttachJobs(nil)
	require.LessOrEqual(t, simRead(t, s, hot).TempC, uint32(40), "no file: cleared")
}
