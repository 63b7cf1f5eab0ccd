package intake

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/agent/jobdata/jobdatatest"
	"github.com/idlegpu/idlegpu/agent/runner"
	"github.com/idlegpu/idlegpu/endpoint"
	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
)

func dataIntake(t *testing.T) (*Intake, string) {
	s, dir := jobdatatest.Store(t)
	return &Intake{Data: s, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}, dir
}

// TestPrepareDataWithinTheStartDeadline: inputs are fetched only while the
// lease can still start, and a failed fetch refuses the lease.
func TestPrepareDataWithinTheStartDeadline(t *testing.T) {
	d, dir := dataIntake(t)
	csv := []byte("step,loss\n")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write(csv) }))
	defer srv.Close()
	sum := sha256.Sum256(csv)
	in := []endpoint.Input{{URL: srv.URL, SHA256: hex.EncodeToString(sum[:]), Path: "train.csv"}}
	ctx := context.Background()

	mounts, err := d.prepareData(ctx, auctiontypes.Lease{Id: 1, StartDeadline: time.Now().Add(10 * time.Minute)}, in)
	require.NoError(t, err)
	require.Equal(t, []runner.Mount{
		{Source: filepath.Join(dir, "leases", "lease-1", "inputs"), Target: "/inputs", ReadOnly: true},
		{Source: filepath.Join(dir, "leases", "lease-1", "output"), Target: "/output"},
	}, mounts)

	_, err = d.prepareData(ctx, auctiontypes.Lease{Id: 2, StartDeadline: time.Now().Add(StartMargin - time.Second)}, in)
	require.ErrorIs(t, err, ErrRefused)
	require.ErrorContains(t, err, "too soon to fetch its inputs")

	in[0].SHA256 = hex.EncodeToString(make([]byte, 32))
	_, err = d.prepareData(ctx, auctiontypes.Lease{Id: 3, StartDeadline: time.Now().Add(10 * time.Minute)}, in)
	require.ErrorIs(t, err, ErrRefused)
	require.ErrorContains(t, err, "input train.csv: input refused: sha256 ")

	// A lease without data (none prepared) finalises to nothing.
	require.NoError(t, d.FinaliseOutputs(4, time.Now()))
	require.NoError(t, d.FinaliseOutputs(1, time.Now()))
	l, err := d.Data.Listing(1)
	require.NoError(t, err)
	require.Empty(t, l.Files)
}
