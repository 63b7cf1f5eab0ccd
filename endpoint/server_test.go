package endpoint

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	ethcrypto "github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/require"

	"github.com/cosmos/cosmos-sdk/crypto/keys/secp256k1"
	sdk "github.com/cosmos/cosmos-sdk/types"

	settlementtypes "github.com/idlegpu/idlegpu/x/settlement/types"
)

// key signs as a renter with a raw secp256k1 key.
type key struct{ k *secp256k1.PrivKey }

func (k key) SignRequest(h http.Header, q Request) error {
	return KeySigner(func(msg []byte) ([]byte, []byte, error) {
		sig, err := k.k.Sign(msg)
		return sig, k.k.PubKey().Bytes(), err
	}).SignRequest(h, q)
}

func (k key) addr() string { return sdk.AccAddress(k.k.PubKey().Address()).String() }

// leases and jobs stand for the chain and the agent behind the endpoint.
type leases map[uint64]Lease

func (l leases) Lease(_ context.Context, id uint64) (Lease, error) {
	x, ok := l[id]
	if !ok {
		return Lease{}, ErrNoJob
	}
	return x, nil
}

type jobs struct {
	accepted map[uint64]Manifest
	samples  []settlementtypes.Sample
}

func (j *jobs) Accept(_ context.Context, l Lease, m Manifest) (Acceptance, error) {
	j.accepted[l.ID] = m
	if len(m.Inputs) > 0 {
		return Acceptance{Preparing: fmt.Sprintf("fetching %d input(s)", len(m.Inputs))}, nil
	}
	return Acceptance{}, nil
}

func (j *jobs) Status(_ context.Context, id uint64) (JobStatus, error) {
	if _, ok := j.accepted[id]; !ok {
		return JobStatus{}, ErrNoJob
	}
	return JobStatus{LeaseID: id, Lease: "LEASE_STATUS_ACTIVE", Running: true, EpochsProven: 2}, nil
}

func (j *jobs) Logs(id uint64) (io.ReadCloser, error) {
	return io.NopCloser(strings.NewReader(fmt.Sprintf("lease %d: epoch 1 loss=0.42\n", id))), nil
}

func (j *jobs) Samples(id, epoch uint64) ([]settlementtypes.Sample, bool) {
	if id != 1 || epoch != 0 {
		return nil, false
	}
	return j.samples, true
}

type fixture struct {
	srv      *httptest.Server
	renter   key
	stranger key
	wallet   WalletKey // the renter of lease 3, which bid by wallet signature
	manifest []byte
	jobs     *jobs
	nonce    int
	target   Target
}

func setup(t *testing.T, opts ...Option) *fixture {
	manifest := []byte(`{"command":["python","train.py"],"env":{"WANDB_API_KEY":"secret"}}`)
	sum := sha256.Sum256(manifest)
	ek, err := ethcrypto.GenerateKey()
	require.NoError(t, err)
	f := &fixture{renter: key{secp256k1.GenPrivKey()}, stranger: key{secp256k1.GenPrivKey()}, wallet: WalletKey{ek}, manifest: manifest}
	var samples []settlementtypes.Sample
	for i := range 5 {
		samples = append(samples, settlementtypes.Sample{GpuUuid: "GPU-a", TimestampMs: int64(i * 5000), UtilBps: 9000, Procs: 1})
	}
	settlementtypes.SortSamples(samples)
	f.jobs = &jobs{accepted: map[uint64]Manifest{}, samples: samples}
	ls := leases{
		1: {ID: 1, Renter: f.renter.addr(), ManifestHash: hex.EncodeToString(sum[:]), Status: "LEASE_STATUS_PENDING"},
		2: {ID: 2, Renter: f.renter.addr(), ManifestHash: hex.EncodeToString(sum[:]), Status: "LEASE_STATUS_ACTIVE"},
		3: {ID: 3, Renter: sdk.AccAddress(ethcrypto.PubkeyToAddress(ek.PublicKey).Bytes()).String(), ManifestHash: hex.EncodeToString(sum[:]), Status: "LEASE_STATUS_PENDING"},
		4: {ID: 4, Renter: f.renter.addr(), ManifestHash: hex.EncodeToString(sum[:]), Status: "LEASE_STATUS_COMPLETED"},
	}
	f.target = Target{ChainID: "idlegpu-1", Provider: "idlegpu1provider"}
	f.srv = httptest.NewServer(NewServer(f.target, ls, f.jobs, slog.New(slog.NewTextHandler(io.Discard, nil)), opts...).Handler())
	t.Cleanup(f.srv.Close)
	return f
}

// do signs (unless signer is nil) and sends a request.
func (f *fixture) do(t *testing.T, signer Signer, method, path string, body []byte, at time.Time, nonce string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, f.srv.URL+path, bytes.NewReader(body))
	require.NoError(t, err)
	if nonce == "" {
		f.nonce++
		nonce = fmt.Sprintf("n-%d", f.nonce)
	}
	if signer != nil {
		require.NoError(t, SignRequest(req, body, signer, f.target, at, nonce))
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return res.StatusCode, string(b)
}

func TestManifestIsAcceptedOnlyFromTheRenterAndOnlyIfItIsTheCommittedOne(t *testing.T) {
	f := setup(t)
	now := time.Now()
	code, body := f.do(t, nil, "POST", "/v1/leases/1/manifest", f.manifest, now, "")
	require.Equal(t, http.StatusUnauthorized, code, body)
	code, body = f.do(t, f.stranger, "POST", "/v1/leases/1/manifest", f.manifest, now, "")
	require.Equal(t, http.StatusForbidden, code, body)
	require.Contains(t, body, "not the lease's renter")
	other := bytes.Replace(f.manifest, []byte("train.py"), []byte("mine.py"), 1)
	code, body = f.do(t, f.renter, "POST", "/v1/leases/1/manifest", other, now, "")
	require.Equal(t, http.StatusBadRequest, code, body)
	require.Contains(t, body, "is not the job's manifest_hash")
	code, body = f.do(t, f.renter, "POST", "/v1/leases/1/manifest", f.manifest, now.Add(-3*time.Minute), "")
	require.Equal(t, http.StatusUnauthorized, code, body)
	require.Contains(t, body, "outside the allowed skew")
	code, body = f.do(t, f.renter, "POST", "/v1/leases/2/manifest", f.manifest, now, "")
	require.Equal(t, http.StatusConflict, code, body)
	require.Empty(t, f.jobs.accepted, "nothing was started")

	code, body = f.do(t, f.renter, "POST", "/v1/leases/1/manifest", f.manifest, now, "once")
	require.Equal(t, http.StatusAccepted, code, body)
	require.Equal(t, Manifest{Command: []string{"python", "train.py"}, Env: map[string]string{"WANDB_API_KEY": "secret"}}, f.jobs.accepted[1])
	code, body = f.do(t, f.renter, "POST", "/v1/leases/1/manifest", f.manifest, now, "once")
	require.Equal(t, http.StatusConflict, code, body)
	require.Contains(t, body, "nonce already used")
}

func TestTamperedRequestsFail(t *testing.T) {
	f := setup(t)
	req, err := http.NewRequest("GET", f.srv.URL+"/v1/leases/1/status", nil)
	require.NoError(t, err)
	require.NoError(t, SignRequest(req, nil, f.renter, f.target, time.Now(), "x1"))
	req.URL.Path = "/v1/leases/2/status" // the signature covered lease 1
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusUnauthorized, res.StatusCode)
}

func TestStatusLogsAndSamplesWithPaths(t *testing.T) {
	f := setup(t)
	now := time.Now()
	code, body := f.do(t, f.renter, "GET", "/v1/leases/1/status", nil, now, "")
	require.Equal(t, http.StatusOK, code)
	require.JSONEq(t, `{"lease_id":1,"lease_status":"LEASE_STATUS_PENDING","running":false,"exited":false,"exit_code":0,"epochs_proven":0}`, body)
	code, body = f.do(t, f.renter, "GET", "/v1/leases/1/logs", nil, now, "")
	require.Equal(t, http.StatusOK, code)
	require.Equal(t, "lease 1: epoch 1 loss=0.42\n", body)

	code, body = f.do(t, f.renter, "GET", "/v1/leases/1/epochs/0/samples", nil, now, "")
	require.Equal(t, http.StatusOK, code, body)
	var got SamplesResponse
	require.NoError(t, json.Unmarshal([]byte(body), &got))
	require.Len(t, got.Samples, 5)
	for _, s := range got.Samples {
		leaf, err := s.Sample.LeafHash()
		require.NoError(t, err)
		require.NoError(t, settlementtypes.VerifyMerklePath(got.SamplesRoot, leaf, s.LeafIndex, 5, s.Path), "sample %d", s.LeafIndex)
	}
	code, _ = f.do(t, f.renter, "GET", "/v1/leases/1/epochs/9/samples", nil, now, "")
	require.Equal(t, http.StatusNotFound, code)
	code, _ = f.do(t, f.stranger, "GET", "/v1/leases/1/logs", nil, now, "")
	require.Equal(t, http.StatusForbidden, code, "logs are the renter's only")
}

func TestParseManifest(t *testing.T) {
	for _, bad := range []string{`{}`, `{"command":[""]}`, `{"command":["x"],"envs":{}}`, `{"command":["x"],"env":{"1A":"v"}}`,
		`{"command":["x"],"env":{"CUDA_VISIBLE_DEVICES":"0"}}`, `{"command":["x"],"env":{"NVIDIA_MIG_CONFIG_DEVICES":"all"}}`, `not json`} {
		_, err := ParseManifest([]byte(bad))
		require.Error(t, err, bad)
	}
	m, err := ParseManifest([]byte(`{"command":["sh","-c","nvidia-smi"]}`))
	require.NoError(t, err)
	require.Equal(t, []string{"sh", "-c", "nvidia-smi"}, m.Command)
}

// TestSamplesOfADayCarryEveryPath: a day of 15 s samples, each with a path
// that verifies against the root. How fast they are built (one pass, not a
// path per leaf) is BenchmarkMerklePaths' job, not a timed test's.
func TestSamplesOfADayCarryEveryPath(t *testing.T) {
	f := setup(t)
	f.jobs.samples = nil
	for i := range 5760 {
		f.jobs.samples = append(f.jobs.samples, settlementtypes.Sample{GpuUuid: "GPU-a", TimestampMs: int64(i * 15000), UtilBps: 9000, Procs: 1})
	}
	settlementtypes.SortSamples(f.jobs.samples)
	code, body := f.do(t, f.renter, "GET", "/v1/leases/1/epochs/0/samples", nil, time.Now(), "")
	require.Equal(t, http.StatusOK, code)
	var got SamplesResponse
	require.NoError(t, json.Unmarshal([]byte(body), &got))
	require.Len(t, got.Samples, 5760)
	for _, s := range got.Samples {
		leaf, err := s.Sample.LeafHash()
		require.NoError(t, err)
		require.NoError(t, settlementtypes.VerifyMerklePath(got.SamplesRoot, leaf, s.LeafIndex, 5760, s.Path))
	}
}

// TestRequestsSignedForAnotherEndpointFail: the provider and the chain id
// are signed, so a request for one endpoint is refused by another.
func TestRequestsSignedForAnotherEndpointFail(t *testing.T) {
	f := setup(t)
	for _, other := range []Target{{ChainID: "idlegpu-1", Provider: "idlegpu1other"}, {ChainID: "idlegpu-testnet", Provider: f.target.Provider}} {
		req, err := http.NewRequest("GET", f.srv.URL+"/v1/leases/1/status", nil)
		require.NoError(t, err)
		require.NoError(t, SignRequest(req, nil, f.renter, other, time.Now(), "for-"+other.ChainID+other.Provider))
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		res.Body.Close()
		require.Equal(t, http.StatusUnauthorized, res.StatusCode, "%+v", other)
	}
}
