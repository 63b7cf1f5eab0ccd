package endpoint

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// seekable is a job log on disk (what the runners serve).
type seekable struct{ *strings.Reader }

func (seekable) Close() error { return nil }

type logJobs struct {
	*jobs
	log string
}

func (j logJobs) Logs(id uint64) (io.ReadCloser, error) {
	if id == 2 {
		return seekable{strings.NewReader(j.log)}, nil
	}
	return io.NopCloser(strings.NewReader(j.log)), nil // a stream: no seeking
}

// TestLogsAreServedInRanges: a tail or an offset and limit, bounded by
// default, with the chunk's place in the log in headers, from a file and
// from a stream alike.
func TestLogsAreServedInRanges(t *testing.T) {
	f := setup(t)
	log := strings.Repeat("0123456789", 300_000) // 3 MB: above the default chunk
	target := f.target
	srv := NewServer(target, leases{
		1: {ID: 1, Renter: f.renter.addr(), Status: "LEASE_STATUS_ACTIVE"},
		2: {ID: 2, Renter: f.renter.addr(), Status: "LEASE_STATUS_ACTIVE"},
	}, logJobs{f.jobs, log}, discard())
	f.srv.Config.Handler = srv.Handler()
	c := NewClient(f.srv.URL, target, f.renter, "")
	ctx := context.Background()
	for _, id := range []uint64{1, 2} {
		got, err := c.Logs(ctx, id, LogRange{})
		require.NoError(t, err)
		require.Equal(t, LogChunk{Data: []byte(log[len(log)-DefaultLogBytes:]), Offset: int64(len(log) - DefaultLogBytes), Size: int64(len(log))}, got)
		got, err = c.Logs(ctx, id, LogRange{Tail: 15})
		require.NoError(t, err)
		require.Equal(t, LogChunk{Data: []byte("567890123456789"), Offset: int64(len(log) - 15), Size: int64(len(log))}, got)
		got, err = c.Logs(ctx, id, LogRange{Offset: 3, Limit: 4})
		require.NoError(t, err)
		require.Equal(t, LogChunk{Data: []byte("3456"), Offset: 3, Size: int64(len(log))}, got)
		got, err = c.Logs(ctx, id, LogRange{Offset: int64(len(log)) + 5, Limit: 4})
		require.NoError(t, err)
		require.Equal(t, LogChunk{Data: []byte{}, Offset: int64(len(log)), Size: int64(len(log))}, got, "past the end: nothing yet")
	}
	for _, q := range []string{"tail=-1", "tail=x", "limit=99999999999", "tail=3&offset=1", "offset=-2"} {
		code, body := f.do(t, f.renter, "GET", "/v1/leases/1/logs?"+q, nil, time.Now(), "")
		require.Equal(t, http.StatusBadRequest, code, q+": "+body)
	}
}

func discard() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
