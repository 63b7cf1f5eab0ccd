package config

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestJobDataResolved(t *testing.T) {
	r, err := JobData{}.Resolved("/var/lib/agent/jobs")
	require.NoError(t, err)
	require.Equal(t, JobDataSettings{Dir: "/var/lib/agent/jobs/data", CacheDir: "/var/lib/agent/jobs/data/cache",
		CacheBytes: 50 << 30, LeaseInputBytes: 10 << 30, Retention: 72 * time.Hour}, r)

	r, err = Default("/h").JobData.Resolved("/h/jobs")
	require.NoError(t, err)
	require.Equal(t, JobDataSettings{Dir: "/h/jobs/data", CacheDir: "/h/jobs/data/cache", CacheBytes: 50 << 30, LeaseInputBytes: 10 << 30, Retention: 72 * time.Hour}, r)

	_, err = JobData{}.Resolved("")
	require.ErrorContains(t, err, "job_data.dir (or runner.work_dir) must be set")
	_, err = JobData{OutputRetention: "-1h"}.Resolved("/w")
	require.ErrorContains(t, err, `job_data.output_retention: want a positive duration like 72h, got "-1h"`)
	_, err = JobData{CacheGiB: 5, LeaseInputGiB: 6}.Resolved("/w")
	require.ErrorContains(t, err, "job_data.lease_input_gib (6) is above job_data.cache_gib (5)")
}
