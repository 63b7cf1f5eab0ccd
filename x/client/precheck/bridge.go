package precheck

import (
	"context"
	"fmt"

	gogogrpc "github.com/cosmos/gogoproto/grpc"

	sdk "github.com/cosmos/cosmos-sdk/types"

	bridgetypes "github.com/idlegpu/idlegpu/x/bridge/types"
)

// Withdrawal refuses a withdrawal to the EVM side that x/bridge refuses for
// its amount alone (keeper.Withdraw's first two checks): a denom other than
// the bridged one, or less than min_withdrawal. Sent anyway, such a tx
// passes CheckTx, which runs no messages, and fails in its block after the
// fee is paid. display writes an amount as people read it (the chain's
// denom metadata: "0.50 USDC"), so the minimum reads as the web app shows it.
func Withdrawal(ctx context.Context, conn gogogrpc.ClientConn, amount sdk.Coin, display func(sdk.Coin) string) error {
	res, err := bridgetypes.NewQueryClient(conn).Params(ctx, &bridgetypes.QueryParamsRequest{})
	if err != nil {
		return err
	}
	p := res.Params
	if amount.Denom != p.Denom {
		return fmt.Errorf("the bridge pays out %s, not %s (x/bridge denom)", p.Denom, amount.Denom)
	}
	if amount.Amount.LT(p.MinWithdrawal) {
		return fmt.Errorf("%s is below the minimum withdrawal of %s (x/bridge min_withdrawal)",
			display(amount), display(sdk.NewCoin(p.Denom, p.MinWithdrawal)))
	}
	return nil
}
