package jobdata_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cosmos/cosmos-sdk/crypto/keys/secp256k1"
	sdk "github.com/cosmos/cosmos-sdk/types"
	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/agent/jobdata"
	"github.com/idlegpu/idlegpu/endpoint"
	settlementtypes "github.com/idlegpu/idlegpu/x/settlement/types"
)

// key is a renter's key, signing requests as the CLI does.
type key struct{ k *secp256k1.PrivKey }

func (k key) SignRequest(h http.Header, q endpoint.Request) error {
	return endpoint.KeySigner(func(msg []byte) ([]byte, []byte, error) {
		sig, err := k.k.Sign(msg)
		return sig, k.k.PubKey().Bytes(), err
	}).SignRequest(h, q)
}

func (k key) addr() string { return sdk.AccAddress(k.k.PubKey().Address()).String() }

// leases stands for the chain behind the endpoint; noJobs for an agent
// running none (only outputs are asked for here).
type leases map[uint64]endpoint.Lease

func (l leases) Lease(_ context.Context, id uint64) (endpoint.Lease, error) {
	x, ok := l[id]
	if !ok {
		return endpoint.Lease{}, endpoint.ErrNoJob
	}
	return x, nil
}

type noJobs struct{}

func (noJobs) Accept(context.Context, endpoint.Lease, endpoint.Manifest) (endpoint.Acceptance, error) {
	return endpoint.Acceptance{}, endpoint.ErrNoJob
}
func (noJobs) Status(context.Context, uint64) (endpoint.JobStatus, error) {
	return endpoint.JobStatus{}, endpoint.ErrNoJob
}
func (noJobs) Logs(uint64) (io.ReadCloser, error) { return nil, endpoint.ErrNoJob }
func (noJobs) Samples(uint64, uint64) ([]settlementtypes.Sample, bool) {
	return nil, false
}

type outputsFixture struct {
	srv             *httptest.Server
	renter, strange key
	agent           *secp256k1.PrivKey
	store           *jobdata.Store
	out             string // lease 5's output directory
	target          endpoint.Target
	ckpt            []byte
}

func setupOutputs(t *testing.T) *outputsFixture {
	f := &outputsFixture{renter: key{secp256k1.GenPrivKey()}, strange: key{secp256k1.GenPrivKey()}, agent: secp256k1.GenPrivKey(),
		target: endpoint.Target{ChainID: "idlegpu-1", Provider: "idlegpu1provider"}}
	dir := t.TempDir()
	var err error
	f.store, err = jobdata.Open(jobdata.Config{Dir: dir, CacheDir: filepath.Join(dir, "cache"), CacheBytes: 1 << 20, LeaseInputBytes: 1 << 20, Retention: 72 * time.Hour},
		jobdata.Identity{ChainID: f.target.ChainID, Provider: f.target.Provider}, func(msg []byte) ([]byte, []byte, error) {
			sig, err := f.agent.Sign(msg)
			return sig, f.agent.PubKey().Bytes(), err
		})
	require.NoError(t, err)
	_, err = f.store.Prepare(context.Background(), 5, nil)
	require.NoError(t, err)
	f.out = filepath.Join(dir, "leases", "lease-5", "output")
	f.ckpt = make([]byte, 200_000)
	for i := range f.ckpt {
		f.ckpt[i] = byte(i * 7)
	}
	require.NoError(t, os.WriteFile(filepath.Join(f.out, "checkpoint.bin"), f.ckpt, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "agent-secret"), []byte("key"), 0o600))
	require.NoError(t, os.Symlink(filepath.Join(dir, "agent-secret"), filepath.Join(f.out, "stolen")))
	ls := leases{5: {ID: 5, Renter: f.renter.addr(), Status: "LEASE_STATUS_CLOSED"}}
	f.srv = httptest.NewServer(endpoint.NewServer(f.target, ls, noJobs{}, slog.New(slog.NewTextHandler(io.Discard, nil)), endpoint.WithOutputs(f.store)).Handler())
	t.Cleanup(f.srv.Close)
	return f
}

// get sends a GET signed by signer with extra headers.
func (f *outputsFixture) get(t *testing.T, signer endpoint.Signer, path string, hdr map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, f.srv.URL+path, nil)
	require.NoError(t, err)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	require.NoError(t, endpoint.SignRequest(req, nil, signer, f.target, time.Now(), fmt.Sprintf("n-%d", time.Now().UnixNano())))
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return res, b
}

func TestOutputsAreListedOnlyOnceTheJobEnded(t *testing.T) {
	f := setupOutputs(t)
	res, body := f.get(t, f.renter, "/v1/leases/5/outputs", nil)
	require.Equal(t, http.StatusConflict, res.StatusCode, string(body))
	require.Contains(t, string(body), "the job has not ended")

	_, err := f.store.Finalise(5, time.Now())
	require.NoError(t, err)
	c := endpoint.NewClient(f.srv.URL, f.target, f.renter, "")
	l, signer, err := c.Outputs(context.Background(), 5)
	require.NoError(t, err)
	require.Equal(t, sdk.AccAddress(f.agent.PubKey().Address()), signer)
	sum := sha256.Sum256(f.ckpt)
	require.Equal(t, []endpoint.File{{Name: "checkpoint.bin", Size: int64(len(f.ckpt)), SHA256: hex.EncodeToString(sum[:])}}, l.Files)
	require.Equal(t, 1, l.Skipped)
}

func TestOutputDownloadResumesAndVerifies(t *testing.T) {
	f := setupOutputs(t)
	l, err := f.store.Finalise(5, time.Now())
	require.NoError(t, err)
	file := l.Files[0]
	c := endpoint.NewClient(f.srv.URL, f.target, f.renter, "")
	ctx := context.Background()
	dst := filepath.Join(t.TempDir(), "checkpoint.bin")

	// A Range request is answered with exactly that part.
	res, body := f.get(t, f.renter, "/v1/leases/5/outputs/checkpoint.bin", map[string]string{"Range": "bytes=1000-1999"})
	require.Equal(t, http.StatusPartialContent, res.StatusCode)
	require.Equal(t, f.ckpt[1000:2000], body)
	require.Equal(t, fmt.Sprintf("bytes 1000-1999/%d", len(f.ckpt)), res.Header.Get("Content-Range"))
	require.Equal(t, file.SHA256, res.Header.Get(endpoint.HeaderSHA256))

	// An interrupted download resumes from where its .part ends.
	require.NoError(t, os.WriteFile(dst+".part", f.ckpt[:123_456], 0o644))
	from, err := c.Download(ctx, 5, file, dst)
	require.NoError(t, err)
	require.Equal(t, int64(123_456), from)
	got, err := os.ReadFile(dst)
	require.NoError(t, err)
	require.True(t, bytes.Equal(f.ckpt, got))
	require.NoFileExists(t, dst+".part")

	// A .part holding other bytes fails the listing's sha256, is dropped,
	// and the next try downloads it whole.
	dst2 := filepath.Join(t.TempDir(), "c2")
	require.NoError(t, os.WriteFile(dst2+".part", make([]byte, 5000), 0o644))
	_, err = c.Download(ctx, 5, file, dst2)
	require.ErrorContains(t, err, "the signed listing says 200000 bytes with "+file.SHA256)
	require.NoFileExists(t, dst2)
	require.NoFileExists(t, dst2+".part")
	from, err = c.Download(ctx, 5, file, dst2)
	require.NoError(t, err)
	require.Zero(t, from)
	got, err = os.ReadFile(dst2)
	require.NoError(t, err)
	require.True(t, bytes.Equal(f.ckpt, got))
}

func TestOutputDownloadRefusesEscapesAndStrangers(t *testing.T) {
	f := setupOutputs(t)
	_, err := f.store.Finalise(5, time.Now())
	require.NoError(t, err)
	for _, p := range []string{"..%2F..%2Fagent-secret", "..%2Flisting.json", "stolen", "%2Fetc%2Fpasswd", "missing.bin"} {
		res, body := f.get(t, f.renter, "/v1/leases/5/outputs/"+p, nil)
		require.Equal(t, http.StatusNotFound, res.StatusCode, p)
		require.Contains(t, string(body), "not a file of the output listing", p)
		require.NotContains(t, string(body), "key")
	}
	for _, p := range []string{"/v1/leases/5/outputs", "/v1/leases/5/outputs/checkpoint.bin"} {
		res, body := f.get(t, f.strange, p, nil)
		require.Equal(t, http.StatusForbidden, res.StatusCode, p)
		require.Contains(t, string(body), "not the lease's renter")
	}
}
