package cli

import (
	"context"
	"fmt"

	"github.com/cosmos/cosmos-sdk/client"

	"github.com/idlegpu/idlegpu/x/auction/client/marketcheck"
	"github.com/idlegpu/idlegpu/x/auction/types"
)

const flagSkipMarketCheck = "skip-market-check"

// checkMarket refuses a job the market cannot serve now
// (marketcheck.Check), naming the flag that posts it anyway.
func checkMarket(ctx context.Context, clientCtx client.Context, spec types.JobSpec, params types.Params) error {
	if err := marketcheck.Check(ctx, clientCtx, spec, params); err != nil {
		return fmt.Errorf("%w; --%s posts it anyway (for a job you expect bids on)", err, flagSkipMarketCheck)
	}
	return nil
}
