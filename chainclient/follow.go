package chainclient

import (
	"context"
	"errors"
	"fmt"
	"time"

	rpchttp "github.com/cometbft/cometbft/rpc/client/http"
	jsonrpcclient "github.com/cometbft/cometbft/rpc/jsonrpc/client"
	cmttypes "github.com/cometbft/cometbft/types"
)

const (

	// followQuery selects one event per committed block.
	followQuery = "tm.event='NewBlockHeader'"

	// followBuffer holds live headers while a catch-up runs; the node's
	// events client drops what does not fit, and the gap is caught up.
	followBuffer = 100

	// blockchainInfoLimit is how many headers the node's blockchain RPC
	// returns per call.
	blockchainInfoLimit = 20
)

// Header is a block header as x/settlement uses it: a proof's challenge is
// the hash of a recent header whose time lies in the proven epoch.
type Header struct {
	Height int64
	Hash   []byte // the header hash (the block id hash)
	Time   time.Time
}

// FollowHeaders calls fn with every block header from height from (from ≤
// 0: the node's latest) onwards, each once and in height order, until ctx
// ends (it returns ctx's error) or fn returns an error (it returns that
// error). Live headers come over the node's websocket; before them, after
// every reconnection, and whenever a height was skipped, the missing ones
// are queried, so a dropped event, a broken websocket or a node restart
// leaves no gap. A height the node has pruned gives ErrHeightUnavailable.
func (c *Client) FollowHeaders(ctx context.Context, from int64, fn func(Header) error) error {
	nodes := c.cfg.nodes()
	f := &follower{remote: nodes[0], next: from, fn: fn, stall: c.followStall}
	cur := 0
	var bo backoff
	for {
		delivered := f.next
		err := f.session(ctx)
		var fnErr fnError
		switch {
		case errors.As(err, &fnErr):
			return fnErr.err
		case ctx.Err() != nil:
			return ctx.Err()
		case errors.Is(err, ErrHeightUnavailable):
			return err
		}
		// A session that got somewhere was a working connection that broke:
		// reconnect at once rather than after the last failure's delay.
		if f.next != delivered {
			bo.reset()
		} else if len(nodes) > 1 {
			// Nothing from this node: the next one is tried (each
			// reconnection may land on another node: catch-up by height
			// keeps the headers gapless across nodes of one chain).
			cur = (cur + 1) % len(nodes)
			f.remote = nodes[cur]
		}
		c.log.Warn("chain: header follower reconnecting", "err", err, "next_height", f.next, "after", max(bo.next, backoffStart))
		if err := bo.wait(ctx); err != nil {
			return err
		}
	}
}

// fnError carries the callback's error out of a session unchanged.
type fnError struct{ err error }

func (e fnError) Error() string { return e.err.Error() }

// errMissedHeaders ends a session whose websocket went quiet while blocks
// were made: it is replaced by a fresh connection.
var errMissedHeaders = errors.New("websocket delivered no headers while the node made blocks")

// follower is the state that outlives connections: the next height to
// deliver.
type follower struct {
	remote string
	next   int64 // ≤ 0 until the first session reads the latest height
	fn     func(Header) error
	stall  time.Duration
}

// session is one connection: subscribe, catch up, then take live headers
// until something fails. It always returns an error.
func (f *follower) session(ctx context.Context) error {
	hc, err := jsonrpcclient.DefaultHTTPClient(f.remote)
	if err != nil {
		return err
	}
	hc.Timeout = rpcTimeout
	defer hc.CloseIdleConnections()
	// The HTTP client serves the catch-up queries only; its own websocket
	// is never started (see headerStream).
	node, err := rpchttp.NewWithClient(f.remote, "/websocket", hc)
	if err != nil {
		return err
	}
	stream, err := subscribeHeaders(ctx, f.remote)
	if err != nil {
		return fmt.Errorf("websocket: %w", err)
	}
	defer stream.close()

	if err := f.catchUp(ctx, node, 0); err != nil {
		return err
	}

	idle := time.NewTimer(f.stall)
	defer idle.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()

		case err := <-stream.errc:
			return fmt.Errorf("websocket: %w", err)

		case h, ok := <-stream.headers:
			if !ok {
				return fmt.Errorf("websocket: %w", <-stream.errc)
			}
			if h.Height < f.next {
				continue // delivered by a catch-up already
			}
			if h.Height > f.next {
				if err := f.catchUp(ctx, node, h.Height-1); err != nil {
					return err
				}
			}
			if err := f.deliver(&h); err != nil {
				return err
			}

		case <-idle.C:
			// Quiet for a while: a halted chain, or a websocket that died
			// without closing. Ask over plain RPC.
			before := f.next
			if err := f.catchUp(ctx, node, 0); err != nil {
				return err
			}
			if f.next != before {
				return errMissedHeaders
			}
		}
		idle.Reset(f.stall)
	}
}

// catchUp delivers the stored headers from f.next up to height to (0: the
// node's latest).
func (f *follower) catchUp(ctx context.Context, node *rpchttp.HTTP, to int64) error {
	if to <= 0 || f.next <= 0 {
		st, err := node.Status(ctx)
		if err != nil {
			return fmt.Errorf("status: %w", err)
		}
		if to <= 0 {
			to = st.SyncInfo.LatestBlockHeight
		}
		if f.next <= 0 {
			f.next = st.SyncInfo.LatestBlockHeight
		}
	}
	for f.next <= to {
		hi := min(f.next+blockchainInfoLimit-1, to)
		res, err := node.BlockchainInfo(ctx, f.next, hi)
		if err != nil {
			return fmt.Errorf("blockchain %d-%d: %w", f.next, hi, err)
		}
		if len(res.BlockMetas) == 0 {
			return fmt.Errorf("blockchain %d-%d: no headers", f.next, hi)
		}
		// Highest first; the node raises the low end to its oldest kept height.
		metas := res.BlockMetas
		if low := metas[len(metas)-1].Header.Height; low > f.next {
			return fmt.Errorf("%w: height %d (the node keeps %d onwards)", ErrHeightUnavailable, f.next, low)
		}
		start := f.next
		for i := len(metas) - 1; i >= 0; i-- {
			if h := &metas[i].Header; h.Height == f.next {
				if err := f.deliver(h); err != nil {
					return err
				}
			}
		}
		if f.next == start {
			return fmt.Errorf("blockchain %d-%d: height %d missing", start, hi, start)
		}
	}
	return nil
}

// deliver hands the header at f.next to fn and moves on.
func (f *follower) deliver(h *cmttypes.Header) error {
	if h.Height != f.next {
		return fmt.Errorf("header at height %d, want %d", h.Height, f.next)
	}
	if err := f.fn(Header{Height: h.Height, Hash: h.Hash(), Time: h.Time}); err != nil {
		return fnError{err}
	}
	f.next++
	return nil
}
