package cli

import (
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/require"

	sdkmath "cosmossdk.io/math"

	"github.com/cosmos/cosmos-sdk/client"
	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/ethereum/go-ethereum/crypto"

	"github.com/idlegpu/idlegpu/x/auction/types"
	"github.com/idlegpu/idlegpu/x/base/chaincfg"
	bridgetypes "github.com/idlegpu/idlegpu/x/bridge/types"
)

// parsed is cmd with args parsed, as cobra parses them before RunE.
func parsed(t *testing.T, cmd *cobra.Command, args ...string) *cobra.Command {
	t.Helper()
	require.NoError(t, cmd.Flags().Parse(args))
	return cmd
}

// TestSignJobFee: sign-job's --max-relayer-fee reads as every amount does,
// in the price's denom: "0.05usdc" and "50000uusdc" sign the same bid. The
// bare "50000" it once took as base units is refused, not guessed at.
func TestSignJobFee(t *testing.T) {
	key, err := crypto.GenerateKey()
	require.NoError(t, err)
	// Offline: the units come from the genesis list, no node is asked.
	clientCtx := client.Context{ChainID: "idlegpu-test", Offline: true}
	spec := types.JobSpec{MaxPrice: sdk.NewInt64Coin(chaincfg.USDCDenom, 1_500_000)}
	fee := func(args ...string) (sdkmath.Int, error) {
		bid, err := bidFromFlags(parsed(t, SignJobCmd(), args...), clientCtx, &types.QueryParamsResponse{}, spec, key.PublicKey)
		return bid.MaxRelayerFee, err
	}
	for _, tc := range []struct {
		args []string
		want int64
	}{
		{[]string{"--max-relayer-fee", "0.05usdc"}, 50_000},
		{[]string{"--max-relayer-fee", "50000uusdc"}, 50_000},
		{[]string{"--max-relayer-fee", "0.05 USDC"}, 50_000},
		{[]string{"--max-relayer-fee", "0"}, 0},
		{nil, 0},
	} {
		got, err := fee(tc.args...)
		require.NoError(t, err, tc.args)
		require.Equal(t, sdkmath.NewInt(tc.want), got, tc.args)
	}
	for _, tc := range []struct{ fee, err string }{
		{"50000", `--max-relayer-fee: "50000" has no denom: add one, e.g. 0.05usdc or 50000uusdc`},
		{"0.0000005usdc", `--max-relayer-fee: "0.0000005usdc" is a fraction of a base unit: usdc has 6 decimals, the smallest step is 0.000001usdc (1uusdc)`},
		{"50000ugpu", `--max-relayer-fee 50000ugpu: a bid's fee, like its price, is paid in uusdc`},
		{"0uusdc", `--max-relayer-fee: "0uusdc" reads as 0 of denom uusdc: an amount must be positive, in plain decimal digits`},
	} {
		_, err := fee("--max-relayer-fee", tc.fee)
		require.EqualError(t, err, tc.err)
	}
}

// TestSignWithdrawAmounts: sign-withdraw's <amount> and --max-relayer-fee
// read as every amount does; the amount is the bridged denom, at least its
// minimum.
func TestSignWithdrawAmounts(t *testing.T) {
	metas := chaincfg.DenomMetadata()
	bp := bridgetypes.Params{Denom: chaincfg.USDCDenom, MinWithdrawal: sdkmath.NewInt(1_000_000)}
	read := func(amount string, args ...string) (sdk.Coin, sdk.Coin, error) {
		return withdrawAmounts(parsed(t, SignWithdrawCmd(), args...), amount, metas, bp)
	}
	for _, tc := range []struct {
		amount string
		args   []string
		fee    string
	}{
		{"2.5usdc", []string{"--max-relayer-fee", "0.05usdc"}, "50000uusdc"},
		{"2500000uusdc", []string{"--max-relayer-fee", "50000uusdc"}, "50000uusdc"},
		{"2.5 USDC", []string{"--max-relayer-fee", "0.05 USDC"}, "50000uusdc"},
		{"2.5usdc", nil, "0uusdc"},
		{"2.5usdc", []string{"--max-relayer-fee", "0.01gpu"}, "10000ugpu"},
	} {
		amount, fee, err := read(tc.amount, tc.args...)
		require.NoError(t, err, tc.amount)
		require.Equal(t, "2500000uusdc", amount.String(), tc.amount)
		require.Equal(t, tc.fee, fee.String(), tc.args)
	}
	for _, tc := range []struct {
		amount string
		args   []string
		err    string
	}{
		{"2500000", nil, `amount: "2500000" has no denom: add one, e.g. 2.5usdc or 2500000uusdc`},
		{"0.5usdc", nil, `amount: 0.50 USDC is below the minimum withdrawal of 1.00 USDC (x/bridge min_withdrawal)`},
		{"2gpu", nil, `amount: the bridge pays out uusdc, not ugpu (x/bridge denom)`},
		{"2.5usdc", []string{"--max-relayer-fee", "50000"}, `--max-relayer-fee: "50000" has no denom: add one, e.g. 0.05usdc or 50000uusdc`},
	} {
		_, _, err := read(tc.amount, tc.args...)
		require.EqualError(t, err, tc.err)
	}
}

// TestActionAndSubmitFees: sign-cancel's and sign-close's --max-relayer-fee
// (any denom; none is written in the bond denom) and submit-signed-job's
// --relayer-fee (the signed fee's denom) read as every amount does.
func TestActionAndSubmitFees(t *testing.T) {
	metas := chaincfg.DenomMetadata()
	for _, cmd := range []func() *cobra.Command{SignCancelCmd, SignCloseCmd} {
		for _, v := range []string{"0.02usdc", "20000uusdc", "0.02 Usdc"} {
			c, err := feeFlag(parsed(t, cmd(), "--max-relayer-fee", v), flagMaxRelayerFee, metas, chaincfg.BondDenom)
			require.NoError(t, err, v)
			require.Equal(t, "20000uusdc", c.String(), v)
		}
		c, err := feeFlag(parsed(t, cmd()), flagMaxRelayerFee, metas, chaincfg.BondDenom)
		require.NoError(t, err)
		require.Equal(t, "0ugpu", c.String())
		_, err = feeFlag(parsed(t, cmd(), "--max-relayer-fee", "20000"), flagMaxRelayerFee, metas, chaincfg.BondDenom)
		require.EqualError(t, err, `--max-relayer-fee: "20000" has no denom: add one, e.g. 0.02gpu or 20000ugpu`)
	}

	submit := func(args ...string) (sdk.Coin, error) {
		return feeIn(parsed(t, SubmitSignedJobCmd(), args...), flagRelayerFee, metas, chaincfg.USDCDenom, "the signed fee")
	}
	for _, v := range []string{"0.05usdc", "50000uusdc"} {
		c, err := submit("--relayer-fee", v)
		require.NoError(t, err, v)
		require.Equal(t, "50000uusdc", c.String(), v)
	}
	for _, args := range [][]string{nil, {"--relayer-fee", "0"}, {"--relayer-fee", "0.00"}} {
		c, err := submit(args...)
		require.NoError(t, err, args)
		require.Equal(t, "0uusdc", c.String(), args)
	}
	_, err := submit("--relayer-fee", "50000")
	require.EqualError(t, err, `--relayer-fee: "50000" has no denom: add one, e.g. 0.05usdc or 50000uusdc`)
	_, err = submit("--relayer-fee", "0.05gpu")
	require.EqualError(t, err, `--relayer-fee 50000ugpu: the signed fee is paid in uusdc`)
}
