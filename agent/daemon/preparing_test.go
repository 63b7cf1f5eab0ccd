package daemon

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/agent/intake"
	"github.com/idlegpu/idlegpu/agent/jobdata/jobdatatest"
	"github.com/idlegpu/idlegpu/endpoint"
)

// fetchingDaemon is a lease daemon with a job data store: it fetches inputs.
func fetchingDaemon(t *testing.T) (*Daemon, *fakeRunner, *fakeChain, *fakeAuction) {
	r := &fakeRunner{jobs: map[uint64]*fakeJob{}}
	tx := &fakeChain{}
	d, auction := leaseDaemon(t, r, tx)
	d.data, _ = jobdatatest.Store(t)
	return d, r, tx, auction
}

// TestInputsFetchedAfterTheAnswer: a manifest naming inputs is answered
// at once, whatever the fetch takes (the renter's request times out in
// 30 s; a model can take minutes). The status says what the agent is
// doing, the job and the lease start once the inputs are in, and a fetch
// that fails refuses the lease with its reason in the status, never a
// started lease or a job. A renter's retry during the fetch starts no
// second one; one after a refusal tries again.
func TestInputsFetchedAfterTheAnswer(t *testing.T) {
	csv := []byte("step,loss\n1,9\n")
	sum := sha256.Sum256(csv)
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-release
		_, _ = w.Write(csv)
	}))
	defer srv.Close()

	d, r, tx, auction := fetchingDaemon(t)
	defer d.jobs().Close()
	ctx := context.Background()
	api := d.jobs()

	l := pendingLease(7)
	l.StartDeadline = time.Now().Add(10 * time.Minute)
	auction.set(l)
	m := endpoint.Manifest{Command: []string{"train"}, Inputs: []endpoint.Input{{URL: srv.URL + "/train.csv", SHA256: hex.EncodeToString(sum[:]), Path: "train.csv"}}}

	acc, err := api.Accept(ctx, endpoint.Lease{ID: l.Id, Renter: l.Renter}, m)
	require.NoError(t, err)
	require.Equal(t, endpoint.Acceptance{Preparing: "fetching 1 input(s)"}, acc, "answered before the fetch ends")
	st, err := api.Status(ctx, l.Id)
	require.NoError(t, err)
	require.Equal(t, endpoint.JobStatus{LeaseID: 7, Lease: "LEASE_STATUS_PENDING", ExitCode: -1, Preparing: "fetching 1 input(s)"}, st)
	acc, err = api.Accept(ctx, endpoint.Lease{ID: l.Id, Renter: l.Renter}, m)
	require.NoError(t, err, "the renter's retry")
	require.Equal(t, "fetching 1 input(s)", acc.Preparing)
	require.Zero(t, tx.starts(), "nothing starts before the inputs are in")

	close(release)
	require.Eventually(t, func() bool { _, ok := d.jobs().Preparing(l.Id); return !ok }, 10*time.Second, 10*time.Millisecond)
	require.Equal(t, 1, tx.starts(), "the lease started once")
	require.Len(t, r.jobs, 1)
	rec, ok := d.records.Get(l.Id)
	require.True(t, ok)
	require.True(t, rec.Started)
	st, err = api.Status(ctx, l.Id)
	require.NoError(t, err)
	require.True(t, st.Running)
	require.Empty(t, st.Preparing)

	// A wrong sha256: refused, and the status says why.
	bad := pendingLease(8)
	bad.StartDeadline = time.Now().Add(10 * time.Minute)
	auction.set(bad)
	m.Inputs[0].SHA256 = hex.EncodeToString(make([]byte, 32))
	_, err = api.Accept(ctx, endpoint.Lease{ID: bad.Id, Renter: bad.Renter}, m)
	require.NoError(t, err)
	require.Eventually(t, func() bool { p, _ := d.jobs().Preparing(bad.Id); return p.Refused != "" }, 10*time.Second, 10*time.Millisecond)
	st, err = api.Status(ctx, bad.Id)
	require.NoError(t, err)
	require.Empty(t, st.Preparing)
	require.Contains(t, st.Refused, "job refused: input train.csv: input refused: sha256 ")
	require.False(t, st.Running)
	require.False(t, st.Exited)
	require.Equal(t, 1, tx.starts(), "a refused lease is not started")
	require.NotContains(t, r.jobs, bad.Id)
	_, ok = d.records.Get(bad.Id)
	require.False(t, ok)

	// The renter fixes nothing and sends it again: a new try, refused again.
	acc, err = api.Accept(ctx, endpoint.Lease{ID: bad.Id, Renter: bad.Renter}, m)
	require.NoError(t, err)
	require.Equal(t, "fetching 1 input(s)", acc.Preparing)
	require.Eventually(t, func() bool { p, _ := d.jobs().Preparing(bad.Id); return p.Refused != "" }, 10*time.Second, 10*time.Millisecond)

	// Refusals that need no fetch are answered at once.
	late := pendingLease(9)
	late.StartDeadline = time.Now().Add(intake.StartMargin - time.Second)
	auction.set(late)
	_, err = api.Accept(ctx, endpoint.Lease{ID: late.Id, Renter: late.Renter}, m)
	require.ErrorIs(t, err, intake.ErrRefused)
	require.ErrorContains(t, err, "too soon to fetch its inputs")
	_, ok = d.jobs().Preparing(late.Id)
	require.False(t, ok)
}

// TestClosingCancelsFetches: a fetch under way when the agent stops is
// cut short and its lease stays PENDING (the renter sends the manifest to
// the restarted agent).
func TestClosingCancelsFetches(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
	defer srv.Close()
	d, r, tx, auction := fetchingDaemon(t)
	l := pendingLease(3)
	l.StartDeadline = time.Now().Add(10 * time.Minute)
	auction.set(l)
	_, err := d.jobs().Accept(context.Background(), endpoint.Lease{ID: l.Id, Renter: l.Renter},
		endpoint.Manifest{Command: []string{"train"}, Inputs: []endpoint.Input{{URL: srv.URL + "/x", SHA256: hex.EncodeToString(make([]byte, 32)), Path: "x"}}})
	require.NoError(t, err)
	done := make(chan struct{})
	go func() { d.jobs().Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("close did not cut the fetch short")
	}
	require.Zero(t, tx.starts())
	require.Empty(t, r.jobs)
}
