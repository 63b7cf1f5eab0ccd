package cmd

import (
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/require"
)

// TestBankAmountsReadLikeEveryCommand: `tx bank send` takes the amounts
// post-job and the autocli coin flags take, in display or base units, and
// refuses what they refuse.
func TestBankAmountsReadLikeEveryCommand(t *testing.T) {
	for in, want := range map[string]string{
		"50usdc,5gpu":         "50000000uusdc,5000000ugpu",
		"1.5 USDC":            "1500000uusdc",
		"1500000uusdc":        "1500000uusdc",
		"0.000001gpu, 2uusdc": "1ugpu,2uusdc",
		"1000000000000uusdc":  "1000000000000uusdc",
	} {
		got, err := baseUnits(in)
		require.NoError(t, err, in)
		require.Equal(t, want, got, in)
	}
	for _, bad := range []string{"50", "0.0000001gpu", "5gpu/gpu-h", "", "0usdc"} {
		_, err := baseUnits(bad)
		require.Error(t, err, bad)
	}

	// The wrapped command hands the SDK's send base units.
	root := NewRootCmd()
	send, _, err := root.Find([]string{"tx", "bank", "send"})
	require.NoError(t, err)
	require.Equal(t, "send", send.Name())
	var seen []string
	send.RunE = func(_ *cobra.Command, args []string) error { seen = args; return nil }
	humanBankAmounts(root)
	require.NoError(t, send.RunE(send, []string{"alice", "idle1x", "50usdc,5gpu"}))
	require.Equal(t, []string{"alice", "idle1x", "50000000uusdc,5000000ugpu"}, seen)
	require.EqualError(t, send.RunE(send, []string{"alice", "idle1x", "50"}), `"50" has no denom: add one, e.g. 0.00005gpu or 50ugpu`)
}
