package units_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/x/auction/client/units"
	"github.com/idlegpu/idlegpu/x/auction/types"
)

func TestParseMemoryAndImage(t *testing.T) {
	for in, want := range map[string]uint64{"81559": 81559, "80GB": 76294, "80GiB": 81920, "512MiB": 512, "1000MB": 954} { //detlint:allow independent cases
		got, err := units.ParseMemoryMiB(in)
		require.NoError(t, err, in)
		require.Equal(t, want, got, in)
	}
	_, err := units.ParseMemoryMiB("lots")
	require.Error(t, err)

	img, digest, err := units.ParseImage("ghcr.io/acme/train@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef")
	require.NoError(t, err)
	require.Equal(t, "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", digest)
	require.Contains(t, img, "ghcr.io/acme/train@")
	_, _, err = units.ParseImage("ghcr.io/acme/train:latest")
	require.ErrorContains(t, err, "pin it by digest")

	tier, err := units.ParseTier("Silver")
	require.NoError(t, err)
	require.Equal(t, types.TIER_SILVER, tier)
	_, err = units.ParseTier("platinum")
	require.Error(t, err)

	secs, err := units.ParseDurationSeconds("2h")
	require.NoError(t, err)
	require.Equal(t, uint64(7200), secs)
	_, err = units.ParseDurationSeconds("0s")
	require.Error(t, err)
}
