package types_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/x/provider/types"
)

func TestValidateRegion(t *testing.T) {
	for _, ok := range []string{"eu", "eu-de", "eu-de-fra1", "na-us-iad", "as-jp-tyo12345", "oc-au", "an-aq", "sa-br-gru1"} {
		require.NoError(t, types.ValidateRegion(ok), ok)
	}
	for _, bad := range []string{
		"", "eu-west", "EU", "eu-DE", "europe", "xx", "eu-xx", "eu-de-f", "eu-de-toolongsite", "eu-de-fra_1",
		"eu-de-fra1-a", "eu-", "-eu", "eu--fra1", "eu-de-", "na-us-iad2-", "eu de",
	} {
		require.ErrorIs(t, types.ValidateRegion(bad), types.ErrInvalidRegion, bad)
	}
}

func TestRegionMatches(t *testing.T) {
	require.True(t, types.RegionMatches("eu", "eu"))
	require.True(t, types.RegionMatches("eu", "eu-de-fra1"))
	require.True(t, types.RegionMatches("eu-de", "eu-de-fra1"))
	require.False(t, types.RegionMatches("eu-de", "eu-dk"))
	require.False(t, types.RegionMatches("eu-de-fra", "eu-de-fra1"), "a site prefix is not a site")
	require.False(t, types.RegionMatches("eu-de-fra1", "eu-de"))
}

func TestValidateEndpoint(t *testing.T) {
	for _, tc := range []struct {
		endpoint string
		https    bool
	}{
		{"https://gpu.example.com", true},
		{"https://gpu.example.com:8443/agent/v1", true},
		{"https://[2001:db8::1]:443", true},
		{"http://127.0.0.1:9180", false},
		{"http://localhost:9180", false},
		{"http://[::1]:9180/x", false},
	} {
		https, err := types.ValidateEndpoint(tc.endpoint)
		require.NoError(t, err, tc.endpoint)
		require.Equal(t, tc.https, https, tc.endpoint)
	}
	for _, bad := range []string{
		"", "gpu.example.com", "http://gpu.example.com", "http://10.0.0.1:80", "ftp://gpu.example.com",
		"https://", "https://u@gpu.example.com", "https://gpu.example.com/?q=1", "https://gpu.example.com/#f",
		"https://gpu.example.com/" + string(make([]byte, 300)), "mailto:a@b.c", "https://gpu example.com",
	} {
		_, err := types.ValidateEndpoint(bad)
		require.ErrorIs(t, err, types.ErrInvalidEndpoint, bad)
	}
}

func TestValidateMoniker(t *testing.T) {
	require.NoError(t, types.ValidateMoniker("Rack 7 — Frankfurt"))
	for _, bad := range []string{"", " lead", "trail ", "tab\there", "bell\x07", "\xff\xfe", string(make([]byte, 65))} {
		require.ErrorIs(t, types.ValidateMoniker(bad), types.ErrInvalidMoniker, "%q", bad)
	}
}

func TestValidateAgents(t *testing.T) {
	decode := func(s string) ([]byte, error) {
		if s == "bad" {
			return nil, errBad
		}
		return []byte(s), nil
	}
	require.NoError(t, types.ValidateAgents("op", []string{"a", "b"}, 2, decode))
	require.NoError(t, types.ValidateAgents("op", nil, 0, decode))
	require.ErrorIs(t, types.ValidateAgents("op", []string{"a", "b", "c"}, 2, decode), types.ErrInvalidAgents)
	require.ErrorIs(t, types.ValidateAgents("op", []string{"a", "a"}, 5, decode), types.ErrInvalidAgents)
	require.ErrorIs(t, types.ValidateAgents("op", []string{"op"}, 5, decode), types.ErrInvalidAgents)
	require.ErrorIs(t, types.ValidateAgents("op", []string{"bad"}, 5, decode), types.ErrInvalidAgents)
}

type badErr struct{}

func (badErr) Error() string { return "bad address" }

var errBad = badErr{}
