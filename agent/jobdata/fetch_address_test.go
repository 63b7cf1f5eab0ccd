package jobdata

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

// The fetcher dials only where a job's egress may go: carrier-NAT,
// benchmarking and the other ranges the egress firewall blocks included,
// not only what Go calls private.
func TestFetcherDialsOnlyPublicAddresses(t *testing.T) {
	for addr, public := range map[string]bool{
		"93.184.215.14:443":     true,
		"[2606:4700::1111]:443": true,
		"10.1.2.3:80":           false,
		"100.64.0.1:80":         false, // carrier NAT: a provider's ISP side
		"198.18.0.1:80":         false, // benchmarking
		"169.254.169.254:80":    false, // cloud metadata
		"127.0.0.1:80":          false,
		"[::1]:80":              false,
		"[fd00::1]:80":          false,
		"[fe80::1]:80":          false,
		"[::ffff:10.0.0.1]:80":  false,
	} {
		err := publicOnly("tcp", addr, nil)
		if public {
			require.NoError(t, err, addr)
		} else {
			require.True(t, errors.Is(err, ErrInput), "%s: %v", addr, err)
			require.ErrorContains(t, err, "is not a public address", addr)
		}
	}
}
