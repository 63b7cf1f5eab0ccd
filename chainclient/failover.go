package chainclient

import (
	"context"
	"log/slog"
	"sync/atomic"

	"github.com/cometbft/cometbft/libs/bytes"
	rpcclient "github.com/cometbft/cometbft/rpc/client"
	coretypes "github.com/cometbft/cometbft/rpc/core/types"
	cmttypes "github.com/cometbft/cometbft/types"

	"github.com/cosmos/cosmos-sdk/client"
)

// failover is the client context's RPC client over several nodes: every
// call goes to the current node, and one that cannot be reached (transient:
// refused, reset, timed out) is retried on the next, which becomes current.
// A node's answer, an error included, is final: the nodes run one chain.
type failover struct {
	nodes []client.CometRPC
	urls  []string
	cur   atomic.Int64
	log   *slog.Logger
}

var _ client.CometRPC = (*failover)(nil)

// do runs fn on the current node, then on each other one while the node
// tried is unreachable.
func do[T any](ctx context.Context, f *failover, fn func(client.CometRPC) (T, error)) (T, error) {
	start := int(f.cur.Load())
	var (
		v   T
		err error
	)
	for i := range f.nodes {
		k := (start + i) % len(f.nodes)
		v, err = fn(f.nodes[k])
		if !transient(ctx, err) {
			if k != start {
				f.cur.Store(int64(k))
				f.log.Warn("chain: switched RPC node", "from", f.urls[start], "to", f.urls[k])
			}
			return v, err
		}
	}
	return v, err
}

func (f *failover) ABCIInfo(ctx context.Context) (*coretypes.ResultABCIInfo, error) {
	return do(ctx, f, func(n client.CometRPC) (*coretypes.ResultABCIInfo, error) { return n.ABCIInfo(ctx) })
}

func (f *failover) ABCIQuery(ctx context.Context, path string, data bytes.HexBytes) (*coretypes.ResultABCIQuery, error) {
	return do(ctx, f, func(n client.CometRPC) (*coretypes.ResultABCIQuery, error) { return n.ABCIQuery(ctx, path, data) })
}

func (f *failover) ABCIQueryWithOptions(ctx context.Context, path string, data bytes.HexBytes, opts rpcclient.ABCIQueryOptions) (*coretypes.ResultABCIQuery, error) {
	return do(ctx, f, func(n client.CometRPC) (*coretypes.ResultABCIQuery, error) {
		return n.ABCIQueryWithOptions(ctx, path, data, opts)
	})
}

func (f *failover) BroadcastTxCommit(ctx context.Context, tx cmttypes.Tx) (*coretypes.ResultBroadcastTxCommit, error) {
	return do(ctx, f, func(n client.CometRPC) (*coretypes.ResultBroadcastTxCommit, error) {
		return n.BroadcastTxCommit(ctx, tx)
	})
}

func (f *failover) BroadcastTxAsync(ctx context.Context, tx cmttypes.Tx) (*coretypes.ResultBroadcastTx, error) {
	return do(ctx, f, func(n client.CometRPC) (*coretypes.ResultBroadcastTx, error) { return n.BroadcastTxAsync(ctx, tx) })
}

func (f *failover) BroadcastTxSync(ctx context.Context, tx cmttypes.Tx) (*coretypes.ResultBroadcastTx, error) {
	return do(ctx, f, func(n client.CometRPC) (*coretypes.ResultBroadcastTx, error) { return n.BroadcastTxSync(ctx, tx) })
}

func (f *failover) Validators(ctx context.Context, height *int64, page, perPage *int) (*coretypes.ResultValidators, error) {
	return do(ctx, f, func(n client.CometRPC) (*coretypes.ResultValidators, error) {
		return n.Validators(ctx, height, page, perPage)
	})
}

func (f *failover) Status(ctx context.Context) (*coretypes.ResultStatus, error) {
	return do(ctx, f, func(n client.CometRPC) (*coretypes.ResultStatus, error) { return n.Status(ctx) })
}

func (f *failover) Block(ctx context.Context, height *int64) (*coretypes.ResultBlock, error) {
	return do(ctx, f, func(n client.CometRPC) (*coretypes.ResultBlock, error) { return n.Block(ctx, height) })
}

func (f *failover) BlockByHash(ctx context.Context, hash []byte) (*coretypes.ResultBlock, error) {
	return do(ctx, f, func(n client.CometRPC) (*coretypes.ResultBlock, error) { return n.BlockByHash(ctx, hash) })
}

func (f *failover) BlockResults(ctx context.Context, height *int64) (*coretypes.ResultBlockResults, error) {
	return do(ctx, f, func(n client.CometRPC) (*coretypes.ResultBlockResults, error) { return n.BlockResults(ctx, height) })
}

func (f *failover) BlockchainInfo(ctx context.Context, minHeight, maxHeight int64) (*coretypes.ResultBlockchainInfo, error) {
	return do(ctx, f, func(n client.CometRPC) (*coretypes.ResultBlockchainInfo, error) {
		return n.BlockchainInfo(ctx, minHeight, maxHeight)
	})
}

func (f *failover) Commit(ctx context.Context, height *int64) (*coretypes.ResultCommit, error) {
	return do(ctx, f, func(n client.CometRPC) (*coretypes.ResultCommit, error) { return n.Commit(ctx, height) })
}

func (f *failover) Tx(ctx context.Context, hash []byte, prove bool) (*coretypes.ResultTx, error) {
	return do(ctx, f, func(n client.CometRPC) (*coretypes.ResultTx, error) { return n.Tx(ctx, hash, prove) })
}

func (f *failover) TxSearch(ctx context.Context, query string, prove bool, page, perPage *int, orderBy string) (*coretypes.ResultTxSearch, error) {
	return do(ctx, f, func(n client.CometRPC) (*coretypes.ResultTxSearch, error) {
		return n.TxSearch(ctx, query, prove, page, perPage, orderBy)
	})
}

func (f *failover) BlockSearch(ctx context.Context, query string, page, perPage *int, orderBy string) (*coretypes.ResultBlockSearch, error) {
	return do(ctx, f, func(n client.CometRPC) (*coretypes.ResultBlockSearch, error) {
		return n.BlockSearch(ctx, query, page, perPage, orderBy)
	})
}
