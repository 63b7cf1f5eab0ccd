package indexer

import (
	"context"
	"errors"
	"fmt"
	"github.com/idlegpu/idlegpu/chainclient"
	"log/slog"
	"sync"
	"time"

	rpchttp "github.com/cometbft/cometbft/rpc/client/http"
	cmttypes "github.com/cometbft/cometbft/types"
)

const (
	// fetchAhead is how many blocks are fetched at once while catching up.
	fetchAhead = 16
	// callTimeout bounds one RPC call.
	callTimeout = 15 * time.Second
	// pollInterval is how often the node is asked for its height when no
	// new-block event arrives (the websocket is down or slow).
	pollInterval = 2 * time.Second
	// maxBackoff bounds the wait before reconnecting to a node that went away.
	maxBackoff = 15 * time.Second
)

// Indexer follows a node and indexes its blocks into a DB.
type Indexer struct {
	db     *DB
	remote string
	client *rpchttp.HTTP
	log    *slog.Logger

	// mu serialises indexing (Run and SyncTo may run together).
	mu sync.Mutex
	// progress is closed and replaced whenever a block is indexed.
	progressMu sync.Mutex
	progress   chan struct{}
}

// New returns an indexer of the node at rpc (e.g. tcp://127.0.0.1:26657).
func New(db *DB, rpc string, log *slog.Logger) (*Indexer, error) {
	client, err := rpchttp.New(rpc, "/websocket")
	if err != nil {
		return nil, fmt.Errorf("rpc client %s: %w", rpc, err)
	}
	if _, err := txDecoder(); err != nil {
		return nil, err
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Indexer{db: db, remote: rpc, client: client, log: log, progress: make(chan struct{})}, nil
}

// Run catches up to the node's latest height, then follows new blocks until
// ctx is done. A node that goes away is reconnected to with backoff: a node
// restart does not stop it. It returns nil when ctx is done.
func (i *Indexer) Run(ctx context.Context) error {
	backoff := 250 * time.Millisecond
	for {
		before, _ := i.db.Cursor(ctx)
		err := i.follow(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if after, _ := i.db.Cursor(ctx); after > before {
			backoff = 250 * time.Millisecond
		}
		i.log.Warn("index: following the node failed; retrying", "rpc", i.remote, "err", err, "in", backoff)
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, maxBackoff)
	}
}

// follow subscribes to new blocks over the websocket (best effort) and
// indexes up to the node's height at each new block or poll tick, until an
// RPC call fails or ctx is done.
func (i *Indexer) follow(ctx context.Context) error {
	// A plain websocket (chainclient.SubscribeBlocks): CometBFT's WSClient can
	// send on a closed channel when stopped mid-reconnect, a panic.
	var newBlocks <-chan cmttypes.Header
	sctx, cancel := context.WithTimeout(ctx, callTimeout)
	blocks, err := chainclient.SubscribeBlocks(sctx, i.remote)
	cancel()
	if err != nil {
		i.log.Info("index: no websocket subscription; polling", "err", err)
	} else {
		defer blocks.Close()
		newBlocks = blocks.C
	}
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	for {
		latest, err := i.latest(ctx)
		if err != nil {
			return err
		}
		if err := i.SyncTo(ctx, latest); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case _, ok := <-newBlocks:
			if !ok {
				i.log.Info("index: websocket closed; polling")
				newBlocks = nil
			}
		case <-tick.C:
		}
	}
}

// latest is the node's latest committed height.
func (i *Indexer) latest(ctx context.Context) (int64, error) {
	cctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	st, err := i.client.Status(cctx)
	if err != nil {
		return 0, fmt.Errorf("status: %w", err)
	}
	return st.SyncInfo.LatestBlockHeight, nil
}

// SyncTo indexes the blocks after the cursor up to h.
func (i *Indexer) SyncTo(ctx context.Context, h int64) error {
	i.mu.Lock()
	defer i.mu.Unlock()
	for {
		cur, err := i.db.Cursor(ctx)
		if err != nil {
			return err
		}
		if cur >= h {
			return nil
		}
		n := min(h-cur, fetchAhead)
		blocks, err := i.fetchRange(ctx, cur+1, n)
		if err != nil {
			return err
		}
		for _, b := range blocks {
			if err := i.db.IndexBlock(ctx, b); err != nil {
				return err
			}
			i.notify()
		}
	}
}

// fetchRange fetches and decodes n blocks from height from, concurrently.
func (i *Indexer) fetchRange(ctx context.Context, from, n int64) ([]BlockData, error) {
	out := make([]BlockData, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for k := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[k], errs[k] = i.fetch(ctx, from+k)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}

// fetch fetches one block and its results and decodes them.
func (i *Indexer) fetch(ctx context.Context, h int64) (BlockData, error) {
	cctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	blk, err := i.client.Block(cctx, &h)
	if err != nil {
		return BlockData{}, fmt.Errorf("block %d: %w", h, err)
	}
	res, err := i.client.BlockResults(cctx, &h)
	if err != nil {
		return BlockData{}, fmt.Errorf("block results %d: %w", h, err)
	}
	return decodeBlock(blk, res)
}

// notify wakes the WaitFor callers.
func (i *Indexer) notify() {
	i.progressMu.Lock()
	close(i.progress)
	i.progress = make(chan struct{})
	i.progressMu.Unlock()
}

// WaitFor blocks until the cursor is at least h or ctx is done.
func (i *Indexer) WaitFor(ctx context.Context, h int64) error {
	for {
		i.progressMu.Lock()
		ch := i.progress
		i.progressMu.Unlock()
		cur, err := i.db.Cursor(ctx)
		if err != nil {
			return err
		}
		if cur >= h {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait for height %d (at %d): %w", h, cur, ctx.Err())
		case <-ch:
		case <-time.After(time.Second): // another process may be indexing
		}
	}
}
