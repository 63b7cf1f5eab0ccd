package config

import (
	"fmt"
	"path/filepath"
	"time"
)

// JobData is where renters' inputs and outputs live and how much is kept;
// zero fields take DefaultJobData's values.
type JobData struct {
	Dir                  string `toml:"dir" comment:"Each lease's fetched inputs, output directory and signed output listing (empty: <runner.work_dir>/data)."`
	CacheDir             string `toml:"cache_dir" comment:"Fetched inputs by sha256, shared by every lease (empty: <dir>/cache)."`
	CacheGiB             uint64 `toml:"cache_gib" comment:"Input cache size in GiB; past it the least recently used inputs are removed (0: 50)."`
	LeaseInputGiB        uint64 `toml:"lease_input_gib" comment:"What one lease's inputs may add up to, in GiB (0: 10)."`
	OutputRetention      string `toml:"output_retention" comment:"How long a lease's outputs are kept for the renter after the lease ended, e.g. 72h (empty: 72h); the signed listing states the deletion time."`
	AllowPrivateNetworks bool   `toml:"allow_private_networks" comment:"Fetch inputs from loopback and private addresses too (development only: a renter's URL could reach this machine's network)."`
}

// Defaults of JobData.
const (
	DefaultCacheGiB        = 50
	DefaultLeaseInputGiB   = 10
	DefaultOutputRetention = 72 * time.Hour
)

// JobDataSettings are JobData with its defaults filled in.
type JobDataSettings struct {
	Dir, CacheDir               string
	CacheBytes, LeaseInputBytes int64
	Retention                   time.Duration
	AllowPrivateNetworks        bool
}

// Resolved returns the settings with defaults filled in, relative to the
// runner's work directory.
func (j JobData) Resolved(workDir string) (JobDataSettings, error) {
	r := JobDataSettings{Dir: j.Dir, CacheDir: j.CacheDir, Retention: DefaultOutputRetention, AllowPrivateNetworks: j.AllowPrivateNetworks}
	if r.Dir == "" {
		if workDir == "" {
			return r, fmt.Errorf("job_data.dir (or runner.work_dir) must be set")
		}
		r.Dir = filepath.Join(workDir, "data")
	}
	if r.CacheDir == "" {
		r.CacheDir = filepath.Join(r.Dir, "cache")
	}
	gib := func(v, def uint64) int64 {
		if v == 0 {
			v = def
		}
		return int64(v) << 30
	}
	r.CacheBytes, r.LeaseInputBytes = gib(j.CacheGiB, DefaultCacheGiB), gib(j.LeaseInputGiB, DefaultLeaseInputGiB)
	if j.OutputRetention != "" {
		d, err := time.ParseDuration(j.OutputRetention)
		if err != nil || d <= 0 {
			return r, fmt.Errorf("job_data.output_retention: want a positive duration like 72h, got %q", j.OutputRetention)
		}
		r.Retention = d
	}
	if r.LeaseInputBytes > r.CacheBytes {
		return r, fmt.Errorf("job_data.lease_input_gib (%d) is above job_data.cache_gib (%d): one lease's inputs must fit the cache", r.LeaseInputBytes>>30, r.CacheBytes>>30)
	}
	return r, nil
}
