package daemon

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/idlegpu/idlegpu/agent/state"
)

// Mode is the operator's intent for the agent, kept in the state
// directory so that it holds whether the agent runs or not: a running
// daemon reads it every block and never reopens offers the operator
// paused.
type Mode string

// The modes `idlegpu-agent pause | resume | drain | leave` set.
const (
	// ModeRunning sells: offers open while the machine is healthy.
	ModeRunning Mode = "running"
	// ModePaused keeps the offers PAUSED; running leases go on.
	ModePaused Mode = "paused"
	// ModeDraining is paused until the last lease ends: then drained.
	ModeDraining Mode = "draining"
	// ModeLeft drains, then closes the offers, deregisters the GPUs and
	// starts the unbond (the operator's key unbonds).
	ModeLeft Mode = "left"
)

// modeFile is the mode's document in the state directory.
const modeFile = "mode.json"

// ModeState is the mode with when it was set and, for ModeLeft, when the
// GPUs were deregistered (zero until then).
type ModeState struct {
	Mode  Mode      `json:"mode"`
	Since time.Time `json:"since,omitzero"`
	// LeftAt is when the offers were closed and the GPUs deregistered;
	// Left is what that leave did, for the operator's command to report
	// whichever of it and the running agent sent it.
	LeftAt time.Time    `json:"left_at,omitzero"`
	Left   *LeaveResult `json:"left,omitempty"`
}

// Sells reports whether offers may be open in this mode (the zero Mode
// is running: no intent recorded).
func (m Mode) Sells() bool { return m == ModeRunning || m == "" }

// ParseMode reads a mode's name.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case ModeRunning, ModePaused, ModeDraining, ModeLeft:
		return m, nil
	}
	return "", fmt.Errorf("mode %q: want running, paused, draining or left", s)
}

// LoadMode reads the state directory's mode; none saved is running. An
// unreadable one is paused, with the error: selling against an intent
// that cannot be read would be the worse mistake.
func LoadMode(stateDir string) (ModeState, error) {
	var s ModeState
	found, err := state.LoadJSON(filepath.Join(stateDir, modeFile), &s)
	if err != nil {
		return ModeState{Mode: ModePaused}, fmt.Errorf("agent mode: %w", err)
	}
	if !found {
		return ModeState{Mode: ModeRunning}, nil
	}
	if _, err := ParseMode(string(s.Mode)); err != nil {
		return ModeState{Mode: ModePaused}, fmt.Errorf("agent mode in %s: %w", stateDir, err)
	}
	return s, nil
}

// SaveMode records the operator's mode durably (written atomically).
func SaveMode(stateDir string, s ModeState) error {
	return state.SaveJSON(filepath.Join(stateDir, modeFile), s)
}
