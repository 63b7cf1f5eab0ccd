package gpu

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// simCounter is a GPU's energy counter as last reported.
type simCounter struct {
	EnergyMJ uint64    `json:"energy_mj"`
	At       time.Time `json:"at"`
}

func loadSimState(path string) (map[string]simCounter, error) {
	if path == "" {
		return nil, nil
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("sim state: %w", err)
	}
	var m map[string]simCounter
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("sim state %s: %w", path, err)
	}
	return m, nil
}

// saveState writes every counter before a reading is returned, so the file
// never holds less than what was reported (a rename is atomic; a killed
// process leaves the old or the new file). s.mu must be held.
func (s *Sim) saveState() error {
	if s.cfg.StateFile == "" {
		return nil
	}
	m := make(map[string]simCounter, len(s.gpus))
	for _, g := range s.gpus {
		m[g.info.UUID] = simCounter{EnergyMJ: g.energyMJ, At: g.lastT}
	}
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(s.cfg.StateFile), ".sim-state-*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), s.cfg.StateFile)
}
