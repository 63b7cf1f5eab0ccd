package runner_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
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
	"github.com/idlegpu/idlegpu/agent/runner"
	"github.com/idlegpu/idlegpu/endpoint"
	settlementtypes "github.com/idlegpu/idlegpu/x/settlement/types"
)

// TestRentersGuideDataExample runs the renters' guide example ("Data in,
// results out") on a real dockerd: the manifest names an input, the agent
// fetches and checks it, the job (docs/examples/train.sh, as an
// unprivileged user on a read-only root) reads it from /inputs and writes
// a checkpoint to /output, and the renter lists and downloads it through
// the endpoint, byte for byte.
func TestRentersGuideDataExample(t *testing.T) {
	cli := runner.DockerDaemonForTest(t)
	img := runner.ImportBusyboxForTest(t, cli)
	ctx := context.Background()

	// The renter's data, on a server of its own.
	csv := []byte("step,loss\n1,9\n2,5\n3,2\n")
	data := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write(csv) }))
	defer data.Close()
	script, err := os.ReadFile("../../docs/examples/train.sh")
	require.NoError(t, err)
	sum := sha256.Sum256(csv)
	manifest, err := json.Marshal(map[string]any{
		"command": []string{"sh", "-c", string(script)},
		"inputs":  []map[string]string{{"url": data.URL + "/train.csv", "sha256": hex.EncodeToString(sum[:]), "path": "data/train.csv"}},
	})
	require.NoError(t, err)
	m, err := endpoint.ParseManifest(manifest)
	require.NoError(t, err)

	// The agent: its job data store, its docker runner, its endpoint.
	agentKey, renterKey := secp256k1.GenPrivKey(), secp256k1.GenPrivKey()
	target := endpoint.Target{ChainID: "idlegpu-test", Provider: "idle1provider"}
	dir := t.TempDir()
	require.NoError(t, os.Chmod(dir, 0o755))
	store, err := jobdata.Open(jobdata.Config{Dir: dir, CacheDir: filepath.Join(dir, "cache"), CacheBytes: 1 << 20, LeaseInputBytes: 1 << 20,
		Retention: 72 * time.Hour, AllowPrivateNetworks: true}, jobdata.Identity{ChainID: target.ChainID, Provider: target.Provider},
		func(msg []byte) ([]byte, []byte, error) {
			sig, err := agentKey.Sign(msg)
			return sig, agentKey.PubKey().Bytes(), err
		})
	require.NoError(t, err)
	const lease = 4242
	mounts, err := store.Prepare(ctx, lease, m.Inputs)
	require.NoError(t, err)
	d := runner.NewDocker(cli, runner.LimitedForTest(runner.DockerOptions{LogDir: t.TempDir(), Grace: time.Second}))
	job, err := d.Start(ctx, runner.Spec{LeaseID: lease, Image: img, Command: m.Command, Env: m.Env, Mounts: mounts})
	require.NoError(t, err)
	select {
	case <-job.Done():
	case <-time.After(2 * time.Minute):
		t.Fatal("the job did not end within 2 minutes")
	}
	rc, err := job.Logs()
	require.NoError(t, err)
	logs, err := io.ReadAll(rc)
	rc.Close()
	require.NoError(t, err)
	st := job.Status()
	require.False(t, st.Running)
	require.Zero(t, st.ExitCode, string(logs))
	require.Empty(t, st.Err)
	require.Equal(t, "epoch 1: 3 rows, total loss 16\n", string(logs))
	require.NoError(t, job.Stop(ctx))

	ended := time.Now()
	_, err = store.Finalise(lease, ended)
	require.NoError(t, err)
	srv := httptest.NewServer(endpoint.NewServer(target, oneLease{ID: lease, Renter: sdk.AccAddress(renterKey.PubKey().Address()).String()},
		noJobs{}, slog.New(slog.NewTextHandler(io.Discard, nil)), endpoint.WithOutputs(store)).Handler())
	defer srv.Close()

	// The renter: `idlegpud lease outputs`, then `lease download`.
	c := endpoint.NewClient(srv.URL, target, endpoint.KeySigner(func(msg []byte) ([]byte, []byte, error) {
		sig, err := renterKey.Sign(msg)
		return sig, renterKey.PubKey().Bytes(), err
	}), "")
	listing, signer, err := c.Outputs(ctx, lease)
	require.NoError(t, err)
	require.Equal(t, sdk.AccAddress(agentKey.PubKey().Address()), signer)
	ckpt := []byte("checkpoint v1\nrows=3\nloss=16\n")
	trainLog := []byte("rows=3 loss=16\n")
	require.Equal(t, []endpoint.File{
		{Name: "checkpoint.bin", Size: int64(len(ckpt)), SHA256: hexSum(ckpt)},
		{Name: "train.log", Size: int64(len(trainLog)), SHA256: hexSum(trainLog)},
	}, listing.Files)
	require.Equal(t, ended.UTC().Truncate(time.Millisecond).Add(72*time.Hour), listing.DeleteAt)

	dst := filepath.Join(t.TempDir(), "checkpoint.bin")
	require.NoError(t, os.WriteFile(dst+".part", ckpt[:10], 0o644)) // an interrupted earlier try
	from, err := c.Download(ctx, lease, listing.Files[0], dst)
	require.NoError(t, err)
	require.Equal(t, int64(10), from)
	got, err := os.ReadFile(dst)
	require.NoError(t, err)
	require.Equal(t, ckpt, got)
}

func hexSum(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }

// oneLease is the chain as the endpoint sees it: one ended lease.
type oneLease endpoint.Lease

func (l oneLease) Lease(_ context.Context, id uint64) (endpoint.Lease, error) {
	if id != l.ID {
		return endpoint.Lease{}, endpoint.ErrNoJob
	}
	return endpoint.Lease(l), nil
}

// noJobs: the job has ended; only its outputs are asked for.
type noJobs struct{}

func (noJobs) Accept(context.Context, endpoint.Lease, endpoint.Manifest) (endpoint.Acceptance, error) {
	return endpoint.Acceptance{}, endpoint.ErrNoJob
}
func (noJobs) Status(context.Context, uint64) (endpoint.JobStatus, error) {
	return endpoint.JobStatus{}, endpoint.ErrNoJob
}
func (noJobs) Logs(uint64) (io.ReadCloser, error)                      { return nil, endpoint.ErrNoJob }
func (noJobs) Samples(uint64, uint64) ([]settlementtypes.Sample, bool) { return nil, false }
