package gpu

import (
	"encoding/json"
	"errors"
	"os"
)

var _ JobAttacher = (*Sim)(nil)

// AttachJobs implements JobAttacher: each job's processes are put on its
// GPUs, as a real driver would list them, and those of jobs gone are taken
// off. A process keeps the GPUs it was attached to. It is also where the
// sim applies its control file (SimConfig.ControlFile), once per tick
// before the reads.
func (s *Sim) AttachJobs(jobs []JobProcs) {
	want := map[uint64]map[uint32][]string{}
	for _, j := range jobs {
		m := map[uint32][]string{}
		for _, p := range j.PIDs {
			m[p] = j.GPUs
		}
		want[j.LeaseID] = m
	}
	s.jobsMu.Lock()
	for id, had := range s.attached {
		for pid, gpus := range had {
			if _, keep := want[id][pid]; keep {
				continue
			}
			for _, g := range gpus {
				_ = s.Detach(g, pid)
			}
			delete(had, pid)
		}
		if len(had) == 0 {
			delete(s.attached, id)
		}
	}
	for id, m := range want {
		for pid, gpus := range m {
			if _, done := s.attached[id][pid]; done {
				continue
			}
			for _, g := range gpus {
				if err := s.Attach(g, pid); err != nil {
					s.cfg.Log.Debug("sim attach", "gpu", g, "pid", pid, "err", err)
				}
			}
			if s.attached[id] == nil {
				s.attached[id] = map[uint32][]string{}
			}
			s.attached[id][pid] = gpus
		}
	}
	s.jobsMu.Unlock()
	s.applyControl()
}

// applyControl sets the temperature overrides the control file asks for;
// without a file every override is cleared. A file that cannot be read
// leaves them as they were.
func (s *Sim) applyControl() {
	path := s.cfg.ControlFile
	if path == "" {
		return
	}
	var ctl map[string]struct {
		TempC uint32 `json:"temp_c"`
	}
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist): // no file: every override cleared
	case err != nil:
		s.cfg.Log.Warn("sim control file", "path", path, "err", err)
		return
	default:
		if err := json.Unmarshal(b, &ctl); err != nil {
			s.cfg.Log.Warn("sim control file", "path", path, "err", err)
			return
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, g := range s.gpus {
		g.tempC = ctl[g.info.UUID].TempC
	}
}
