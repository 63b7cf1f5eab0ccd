package records

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestRecordsDurable(t *testing.T) {
	dir := t.TempDir()
	r, err := Open(dir)
	require.NoError(t, err)
	require.Empty(t, r.All())
	rec := Record{LeaseID: 7, JobID: 3, Renter: "idle1renter", Image: "img@sha256:00", ImageDigest: "sha256:00",
		GPUs: []string{"GPU-1", "GPU-2"}, Tier: "TIER_BRONZE", Runner: "process", Accepted: time.Unix(100, 0).UTC()}
	require.NoError(t, r.Put(rec))
	require.NoError(t, r.Put(Record{LeaseID: 2}))
	rec.Started = true
	require.NoError(t, r.Put(rec))

	again, err := Open(dir) // a restarted agent
	require.NoError(t, err)
	all := again.All()
	require.Len(t, all, 2)
	require.Equal(t, uint64(2), all[0].LeaseID, "by lease id")
	require.Equal(t, rec, all[1])
	require.NoError(t, again.Delete(2))
	require.NoError(t, again.Delete(99), "deleting a missing record is a no-op")
	third, err := Open(dir)
	require.NoError(t, err)
	_, ok := third.Get(2)
	require.False(t, ok)
	got, ok := third.Get(7)
	require.True(t, ok)
	require.True(t, got.Started)
}
