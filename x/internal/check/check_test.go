package check_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	errorsmod "cosmossdk.io/errors"
	"cosmossdk.io/math"

	cmtproto "github.com/cometbft/cometbft/proto/tendermint/types"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/internal/check"
)

func TestBps(t *testing.T) {
	require.NoError(t, check.Bps("r", 0))
	require.NoError(t, check.Bps("r", 10_000))
	require.EqualError(t, check.Bps("r", 10_001), "r must be at most 10000 bps, got 10001")
}

func TestNonZeroBps(t *testing.T) {
	require.NoError(t, check.NonZeroBps("r", 1))
	require.NoError(t, check.NonZeroBps("r", 10_000))
	require.EqualError(t, check.NonZeroBps("r", 0), "r must be greater than 0")
	require.EqualError(t, check.NonZeroBps("r", 10_001), "r must be at most 10000 bps, got 10001")
}

func TestSeconds(t *testing.T) {
	require.NoError(t, check.Seconds("d", 1))
	require.NoError(t, check.Seconds("d", check.MaxSeconds))
	require.EqualError(t, check.Seconds("d", 0), "d must be greater than 0")
	require.EqualError(t, check.Seconds("d", check.MaxSeconds+1), "d must be at most 3153600000 (100 years), got 3153600001")
	require.Equal(t, 100*365*24*time.Hour, check.Duration(check.MaxSeconds))
}

func TestPositiveCoin(t *testing.T) {
	require.NoError(t, check.PositiveCoin("c", sdk.NewInt64Coin("ugpu", 1)))
	require.EqualError(t, check.PositiveCoin("c", sdk.NewInt64Coin("ugpu", 0)), "c must be positive, got 0ugpu")
	require.EqualError(t, check.PositiveCoin("c", sdk.Coin{Denom: "ugpu", Amount: math.NewInt(-1)}), "c: negative coin amount: -1")
	require.ErrorContains(t, check.PositiveCoin("c", sdk.Coin{Denom: "ugpu"}), "c: ")
}

func TestPositive(t *testing.T) {
	require.NoError(t, check.Positive("n", uint32(1)))
	require.EqualError(t, check.Positive("n", uint64(0)), "n must be greater than 0")
}

func TestGPUsPerLease(t *testing.T) {
	require.NoError(t, check.GPUsPerLease("g", 1))
	require.NoError(t, check.GPUsPerLease("g", check.MaxGPUsPerLease))
	require.EqualError(t, check.GPUsPerLease("g", 0), "g must be greater than 0")
	require.EqualError(t, check.GPUsPerLease("g", 65), "g must be at most 64 (the GPUs one lease's proof can carry), got 65")
}

var errAuth = errorsmod.Register("checktest", 2, "not the authority")

func TestAuthority(t *testing.T) {
	ctx := sdk.Context{}
	require.NoError(t, check.Authority(ctx, "idle1gov", "idle1gov", errAuth))

	err := check.Authority(ctx, "idle1gov", "idle1eve", errAuth)
	require.ErrorIs(t, err, errAuth)
	require.EqualError(t, err, "expected idle1gov, got idle1eve: not the authority")

	// An authority in consensus params (SDK v0.54) overrides the keeper's.
	ctx = ctx.WithConsensusParams(cmtproto.ConsensusParams{Authority: &cmtproto.AuthorityParams{Authority: "idle1council"}})
	require.ErrorIs(t, check.Authority(ctx, "idle1gov", "idle1gov", errAuth), errAuth)
	require.NoError(t, check.Authority(ctx, "idle1gov", "idle1council", errAuth))
}
