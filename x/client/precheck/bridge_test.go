package precheck_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"

	"cosmossdk.io/math"

	sdk "github.com/cosmos/cosmos-sdk/types"

	bridgetypes "github.com/idlegpu/idlegpu/x/bridge/types"
	"github.com/idlegpu/idlegpu/x/client/precheck"
)

// paramsConn answers x/bridge's Params query with params, and nothing else.
type paramsConn struct{ params bridgetypes.Params }

func (c paramsConn) Invoke(_ context.Context, method string, _, reply any, _ ...grpc.CallOption) error {
	if method != "/idlegpu.bridge.v1.Query/Params" {
		return errors.New("unexpected query " + method)
	}
	reply.(*bridgetypes.QueryParamsResponse).Params = c.params
	return nil
}

func (paramsConn) NewStream(context.Context, *grpc.StreamDesc, string, ...grpc.CallOption) (grpc.ClientStream, error) {
	return nil, errors.New("no streams")
}

// TestWithdrawal: the amount checks x/bridge's Withdraw makes before it
// reads a balance, at the chain's params (1 USDC minimum), with amounts in
// the display the caller gives.
func TestWithdrawal(t *testing.T) {
	conn := paramsConn{bridgetypes.DefaultParams()}
	display := func(c sdk.Coin) string { return c.Amount.String() + " of " + c.Denom }
	for _, tc := range []struct {
		amount sdk.Coin
		err    string
	}{
		{sdk.NewInt64Coin("uusdc", 1_000_000), ""},
		{sdk.NewInt64Coin("uusdc", 25_000_000), ""},
		{sdk.NewInt64Coin("uusdc", 999_999), "999999 of uusdc is below the minimum withdrawal of 1000000 of uusdc (x/bridge min_withdrawal)"},
		{sdk.NewInt64Coin("uusdc", 1), "1 of uusdc is below the minimum withdrawal of 1000000 of uusdc (x/bridge min_withdrawal)"},
		{sdk.NewCoin("ugpu", math.NewInt(5_000_000)), "the bridge pays out uusdc, not ugpu (x/bridge denom)"},
	} {
		t.Run(tc.amount.String(), func(t *testing.T) {
			err := precheck.Withdrawal(context.Background(), conn, tc.amount, display)
			if tc.err == "" {
				require.NoError(t, err)
				return
			}
			require.EqualError(t, err, tc.err)
		})
	}
}
