package precheck

import (
	"context"
	"fmt"

	"github.com/cosmos/cosmos-sdk/client"
	banktypes "github.com/cosmos/cosmos-sdk/x/bank/types"

	"github.com/idlegpu/idlegpu/x/base/chaincfg"
)

// DenomMetadata is the denom metadata an amount in display units is read
// against: the node's, as post-job reads its price, when the command reads
// the chain; else (--generate-only, --offline) the genesis list idlegpud
// writes, which nothing on chain changes, so "2usdc" is never taken for a
// denom "usdc" just because no node was asked.
func DenomMetadata(ctx context.Context, clientCtx client.Context) ([]banktypes.Metadata, error) {
	if !Online(clientCtx) {
		return chaincfg.DenomMetadata(), nil
	}
	res, err := banktypes.NewQueryClient(clientCtx).DenomsMetadata(ctx, &banktypes.QueryDenomsMetadataRequest{})
	if err != nil {
		return nil, fmt.Errorf("reading denom metadata: %w", err)
	}
	return res.Metadatas, nil
}
