// Package jobdatatest opens a job data store for tests of the parts that
// use one: a temporary directory, 1 MiB caps, private addresses allowed
// (test servers listen on loopback), listings signed by a fresh key.
package jobdatatest

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/cosmos/cosmos-sdk/crypto/keys/secp256k1"
	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/agent/jobdata"
)

// Store opens a store under a temporary directory, which it returns too.
func Store(t *testing.T) (*jobdata.Store, string) {
	t.Helper()
	dir := t.TempDir()
	k := secp256k1.GenPrivKey()
	s, err := jobdata.Open(jobdata.Config{Dir: dir, CacheDir: filepath.Join(dir, "cache"), CacheBytes: 1 << 20, LeaseInputBytes: 1 << 20,
		Retention: time.Hour, AllowPrivateNetworks: true}, jobdata.Identity{ChainID: "c", Provider: "p"},
		func(msg []byte) ([]byte, []byte, error) { sig, err := k.Sign(msg); return sig, k.PubKey().Bytes(), err })
	require.NoError(t, err)
	return s, dir
}
