package cmd

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/idlegpu/idlegpu/x/auction/client/units"
	"github.com/idlegpu/idlegpu/x/base/chaincfg"
)

// TestPriceFlagsReadLikePostJob: the autocli price flags read every form
// post-job's --max-price reads, as the same coin post-job would send, and
// refuse a bare number; other coin flags take no "/gpu-h".
func TestPriceFlagsReadLikePostJob(t *testing.T) {
	root := NewRootCmd()
	for _, path := range []string{"query offer candidates", "query offer search"} {
		c, _, err := root.Find(strings.Fields(path))
		require.NoError(t, err, path)
		f := c.Flags().Lookup("max-price")
		require.NotNil(t, f, path)
		require.Equal(t, "price", f.Value.Type(), path)
		for _, v := range []string{"0.05usdc", "50000uusdc", "0.05 USDC", "0.05usdc/gpu-h", "50000uusdc/gpu-h", "0.05 Usdc/GPU-H"} {
			require.NoError(t, f.Value.Set(v), "%s --max-price %s", path, v)
			require.Equal(t, "50000uusdc", f.Value.String(), "%s --max-price %s", path, v)
			postJob, err := units.ParsePrice(v, chaincfg.DenomMetadata())
			require.NoError(t, err, v)
			require.Equal(t, postJob.String(), f.Value.String(), "post-job reads %s alike", v)
		}
		require.EqualError(t, f.Value.Set("50000"), `"50000" has no denom: add one, e.g. 0.05usdc or 50000uusdc`)
	}

	coin := &coinValue{}
	require.NoError(t, coin.Set("0.05gpu"))
	require.Equal(t, "50000ugpu", coin.String())
	require.EqualError(t, coin.Set("0.05gpu/gpu-h"), `"0.05gpu/gpu-h" names gpu/gpu-h, which is no denom: write the unit alone (only a price may end in /gpu-h)`)
}
