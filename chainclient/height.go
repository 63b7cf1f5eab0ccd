package chainclient

import (
	"context"
	"fmt"
	"time"
)

// HeightAt returns the first block at or after t that the node still has
// (its earliest when t is older than that, its latest + 1 when t is newer
// than every block). Block times only grow, so a binary search over
// heights finds it in about log2(height) header reads.
func (c *Client) HeightAt(ctx context.Context, t time.Time) (int64, error) {
	node := c.clientCtx.Client
	if node == nil {
		return 0, fmt.Errorf("height at %s: the client context has no RPC client", t)
	}
	st, err := node.Status(ctx)
	if err != nil {
		return 0, fmt.Errorf("status: %w", err)
	}
	lo, hi := st.SyncInfo.EarliestBlockHeight, st.SyncInfo.LatestBlockHeight+1
	if lo < 1 {
		lo = 1
	}
	for lo < hi {
		mid := lo + (hi-lo)/2
		res, err := node.BlockchainInfo(ctx, mid, mid)
		if err != nil {
			return 0, fmt.Errorf("header %d: %w", mid, err)
		}
		if len(res.BlockMetas) == 0 {
			return 0, fmt.Errorf("header %d: not served", mid)
		}
		if res.BlockMetas[0].Header.Time.Before(t) {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo, nil
}
