package jobdata_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
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
)

func hexSum(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }

// keySigner signs like the agent's keyring does (secp256k1 over sha256).
func keySigner(k *secp256k1.PrivKey) endpoint.KeySigner {
	return func(msg []byte) ([]byte, []byte, error) {
		sig, err := k.Sign(msg)
		return sig, k.PubKey().Bytes(), err
	}
}

func openStore(t *testing.T, k *secp256k1.PrivKey) (*jobdata.Store, string) {
	dir := t.TempDir()
	s, err := jobdata.Open(jobdata.Config{Dir: dir, CacheDir: filepath.Join(dir, "cache"), CacheBytes: 1 << 20,
		LeaseInputBytes: 1 << 10, Retention: 72 * time.Hour, AllowPrivateNetworks: true},
		jobdata.Identity{ChainID: "idlegpu-test", Provider: "idle1provider"}, keySigner(k))
	require.NoError(t, err)
	return s, dir
}

func TestPrepareStagesInputsAndMounts(t *testing.T) {
	csv := []byte("x,y\n1,2\n")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write(csv) }))
	defer srv.Close()
	s, dir := openStore(t, secp256k1.GenPrivKey())
	mounts, err := s.Prepare(context.Background(), 7, []endpoint.Input{{URL: srv.URL + "/t", SHA256: hexSum(csv), Path: "data/train.csv"}})
	require.NoError(t, err)
	lease := filepath.Join(dir, "leases", "lease-7")
	require.Equal(t, []runner.Mount{
		{Source: filepath.Join(lease, "inputs"), Target: "/inputs", ReadOnly: true},
		{Source: filepath.Join(lease, "output"), Target: "/output"},
	}, mounts)
	got, err := os.ReadFile(filepath.Join(lease, "inputs", "data", "train.csv"))
	require.NoError(t, err)
	require.Equal(t, csv, got)
	fi, err := os.Stat(filepath.Join(lease, "output"))
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o777), fi.Mode().Perm())

	_, err = s.Listing(7)
	require.ErrorIs(t, err, endpoint.ErrNotFinal)
	_, err = s.Listing(8)
	require.ErrorIs(t, err, endpoint.ErrNoOutputs)

	// A lease's inputs together stay within its cap (1 KiB here): a
	// failed fetch leaves nothing behind.
	big := make([]byte, 1025)
	srv2 := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write(big) }))
	defer srv2.Close()
	_, err = s.Prepare(context.Background(), 9, []endpoint.Input{{URL: srv2.URL, SHA256: hexSum(big), Path: "big"}})
	require.ErrorIs(t, err, jobdata.ErrInput)
	require.NoDirExists(t, filepath.Join(dir, "leases", "lease-9"))

	// Without inputs only the output directory is mounted.
	mounts, err = s.Prepare(context.Background(), 10, nil)
	require.NoError(t, err)
	require.Equal(t, []runner.Mount{{Source: filepath.Join(dir, "leases", "lease-10", "output"), Target: "/output"}}, mounts)
}

func TestFinaliseListsSignsAndServes(t *testing.T) {
	k := secp256k1.GenPrivKey()
	s, dir := openStore(t, k)
	_, err := s.Prepare(context.Background(), 3, nil)
	require.NoError(t, err)
	out := filepath.Join(dir, "leases", "lease-3", "output")
	ckpt := []byte("weights")
	require.NoError(t, os.WriteFile(filepath.Join(out, "checkpoint.bin"), ckpt, 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(out, "logs"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(out, "logs", "train.log"), []byte("loss 0.1\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(out, "logs.txt"), nil, 0o644))
	// A job's links to the agent's files are neither listed nor followed.
	secret := filepath.Join(dir, "agent-secret")
	require.NoError(t, os.WriteFile(secret, []byte("key"), 0o600))
	require.NoError(t, os.Symlink(secret, filepath.Join(out, "stolen")))
	require.NoError(t, os.Symlink("/", filepath.Join(out, "rootfs")))

	ended := time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)
	l, err := s.Finalise(3, ended)
	require.NoError(t, err)
	require.Equal(t, []endpoint.File{
		{Name: "checkpoint.bin", Size: 7, SHA256: hexSum(ckpt)},
		{Name: "logs.txt", Size: 0, SHA256: hexSum(nil)},
		{Name: "logs/train.log", Size: 9, SHA256: hexSum([]byte("loss 0.1\n"))},
	}, l.Files)
	require.Equal(t, 2, l.Skipped)
	require.Equal(t, ended, l.EndedAt)
	require.Equal(t, ended.Add(72*time.Hour), l.DeleteAt)
	require.Equal(t, uint64(3), l.LeaseID)
	require.Equal(t, "idle1provider", l.Provider)
	require.NoDirExists(t, filepath.Join(dir, "leases", "lease-3", "inputs"))

	signer, err := l.Verify()
	require.NoError(t, err)
	require.Equal(t, sdk.AccAddress(k.PubKey().Address()), signer)
	// Idempotent, and what is stored verifies too.
	again, err := s.Finalise(3, ended.Add(time.Hour))
	require.NoError(t, err)
	require.Equal(t, l.DeleteAt, again.DeleteAt)
	_, err = again.Verify()
	require.NoError(t, err)
	// Every field is signed.
	for _, tamper := range []func(*endpoint.Listing){
		func(x *endpoint.Listing) { x.Files[0].SHA256 = hexSum([]byte("other")) },
		func(x *endpoint.Listing) { x.Files[1].Size++ },
		func(x *endpoint.Listing) { x.DeleteAt = x.DeleteAt.Add(time.Hour) },
		func(x *endpoint.Listing) { x.LeaseID++ },
		func(x *endpoint.Listing) { x.Files = x.Files[:1] },
		func(x *endpoint.Listing) { x.PubKey = secp256k1.GenPrivKey().PubKey().Bytes() },
	} {
		x, _ := s.Listing(3)
		tamper(&x)
		_, err := x.Verify()
		require.ErrorIs(t, err, endpoint.ErrBadListing)
	}

	f, file, err := s.Open(3, "logs/train.log")
	require.NoError(t, err)
	require.Equal(t, l.Files[2], file)
	f.Close()
	for _, name := range []string{"stolen", "rootfs/etc/passwd", "../listing.json", "../../agent-secret", "/etc/passwd", "missing"} {
		_, _, err := s.Open(3, name)
		require.ErrorIs(t, err, endpoint.ErrNotListed, name)
	}
	// A listed file swapped for a link after the listing is refused.
	require.NoError(t, os.Remove(filepath.Join(out, "checkpoint.bin")))
	require.NoError(t, os.Symlink(secret, filepath.Join(out, "checkpoint.bin")))
	_, _, err = s.Open(3, "checkpoint.bin")
	require.ErrorContains(t, err, "checkpoint.bin is not a regular file")
}

func TestSweepDeletesAfterRetention(t *testing.T) {
	s, dir := openStore(t, secp256k1.GenPrivKey())
	ended := time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)
	for _, id := range []uint64{1, 2} {
		_, err := s.Prepare(context.Background(), id, nil)
		require.NoError(t, err)
	}
	_, err := s.Finalise(1, ended)
	require.NoError(t, err)

	gone, err := s.Sweep(ended.Add(72*time.Hour - time.Millisecond))
	require.NoError(t, err)
	require.Empty(t, gone)
	gone, err = s.Sweep(ended.Add(72 * time.Hour))
	require.NoError(t, err)
	require.Equal(t, []uint64{1}, gone)
	require.NoDirExists(t, filepath.Join(dir, "leases", "lease-1"))
	// A lease whose job has not ended is kept whatever the time.
	require.DirExists(t, filepath.Join(dir, "leases", "lease-2"))
	_, err = s.Listing(1)
	require.ErrorIs(t, err, endpoint.ErrNoOutputs)
}
