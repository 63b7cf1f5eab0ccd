package jobdata

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// SweepEvery is how often the sweeper looks for outputs past retention.
const SweepEvery = 10 * time.Minute

// Sweep deletes every lease's data whose listing's DeleteAt has come and
// returns the leases it deleted. Data without a listing (a job still
// running, or not yet finalised) is the daemon's to finalise first.
func (s *Store) Sweep(now time.Time) ([]uint64, error) {
	ents, err := os.ReadDir(filepath.Join(s.cfg.Dir, "leases"))
	if err != nil {
		return nil, err
	}
	var gone []uint64
	for _, e := range ents {
		id, err := strconv.ParseUint(strings.TrimPrefix(e.Name(), "lease-"), 10, 64)
		if err != nil || !e.IsDir() {
			continue
		}
		l, err := s.Listing(id)
		if err != nil || now.Before(l.DeleteAt) {
			continue
		}
		if err := os.RemoveAll(s.leaseDir(id)); err != nil {
			return gone, err
		}
		gone = append(gone, id)
	}
	return gone, nil
}

// RunSweeper sweeps every SweepEvery until ctx ends.
func (s *Store) RunSweeper(ctx context.Context, log *slog.Logger) error {
	t := time.NewTicker(SweepEvery)
	defer t.Stop()
	for {
		gone, err := s.Sweep(time.Now())
		if err != nil {
			log.Warn("job data: sweeping outputs past retention", "err", err)
		}
		for _, id := range gone {
			log.Info("job data: outputs deleted at the end of their retention", "lease", id)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}
