package main

import (
	"context"
	"crypto/sha256"
	"fmt"
	"net/http"
	"sync"
	"time"

	rpchttp "github.com/cometbft/cometbft/rpc/client/http"
)

// newRPC is a CometBFT RPC client that keeps a connection per sender
// instead of the default two idle ones (the senders would otherwise spend
// their time opening sockets).
func newRPC(remote string) (*rpchttp.HTTP, error) {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConns, tr.MaxIdleConnsPerHost = 512, 512
	return rpchttp.NewWithClient(remote, "/websocket", &http.Client{Transport: tr, Timeout: 30 * time.Second})
}

// txHash is CometBFT's tx hash.
type txHash [32]byte

// Block is a committed block as the poller saw it.
type Block struct {
	Height   int64
	Time     time.Time // the header's time
	Hash     []byte
	Observed time.Time // when the poller read it: the commit time of its txs
	Txs      int
}

// outcome is where a tracked tx was committed. Its result code is read
// afterwards (results): the node's JSON encoding of every block's events
// would otherwise load it during the measurement more than the txs do.
type outcome struct {
	Height   int64
	Index    int
	Observed time.Time
}

type txResult struct {
	code uint32
	log  string
}

// results reads the result codes of a block's txs. A read is tried three
// times: under load the node's HTTP server now and then closes a kept-alive
// connection as the client reuses it (an EOF), which says nothing of the
// block.
func (p *Poller) results(ctx context.Context, height int64) ([]txResult, error) {
	res, err := p.node.BlockResults(ctx, &height)
	for try := 1; err != nil && try < 3 && ctx.Err() == nil; try++ {
		time.Sleep(200 * time.Millisecond)
		res, err = p.node.BlockResults(ctx, &height)
	}
	if err != nil {
		return nil, fmt.Errorf("block %d results: %w", height, err)
	}
	out := make([]txResult, len(res.TxsResults))
	for i, r := range res.TxsResults {
		out[i] = txResult{code: r.Code, log: r.Log}
	}
	return out, nil
}

// Poller reads every block as it is committed and settles the txs it was
// told to track: the same observer for idlegpud and kvstore, so commit
// latency means the same thing for both.
type Poller struct {
	node *rpchttp.HTTP

	mu      sync.Mutex
	tracked map[txHash]chan outcome
	blocks  []Block
	next    int64
}

// NewPoller follows the node from the block after from.
func NewPoller(node *rpchttp.HTTP, from int64) *Poller {
	return &Poller{node: node, tracked: map[txHash]chan outcome{}, next: from + 1}
}

// Track returns the channel that gets the tx's outcome once it is in a
// block. Call it before broadcasting.
func (p *Poller) Track(tx []byte) <-chan outcome {
	h := txHash(sha256.Sum256(tx))
	ch := make(chan outcome, 1)
	p.mu.Lock()
	p.tracked[h] = ch
	p.mu.Unlock()
	return ch
}

// Forget stops tracking a tx that the mempool refused.
func (p *Poller) Forget(tx []byte) {
	p.mu.Lock()
	delete(p.tracked, txHash(sha256.Sum256(tx)))
	p.mu.Unlock()
}

// Blocks returns the blocks seen so far.
func (p *Poller) Blocks() []Block {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Block(nil), p.blocks...)
}

// Latest is the last block seen.
func (p *Poller) Latest() Block {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.blocks) == 0 {
		return Block{}
	}
	return p.blocks[len(p.blocks)-1]
}

// Run polls until ctx ends. A block is seen committed when the app reports
// it as its last block (abci_info): CometBFT stores a block before it
// executes it, so /block alone would date a tx before its execution.
func (p *Poller) Run(ctx context.Context) {
	for ctx.Err() == nil {
		info, err := p.node.ABCIInfo(ctx)
		if err != nil || info.Response.LastBlockHeight < p.next {
			time.Sleep(20 * time.Millisecond)
			continue
		}
		observed := time.Now()
		for p.next <= info.Response.LastBlockHeight && ctx.Err() == nil {
			h := p.next
			b, err := p.node.Block(ctx, &h)
			if err != nil || b.Block == nil {
				time.Sleep(20 * time.Millisecond)
				continue
			}
			p.mu.Lock()
			for i, tx := range b.Block.Txs {
				if ch, ok := p.tracked[txHash(sha256.Sum256(tx))]; ok {
					delete(p.tracked, txHash(sha256.Sum256(tx)))
					ch <- outcome{Height: h, Index: i, Observed: observed}
				}
			}
			p.blocks = append(p.blocks, Block{Height: h, Time: b.Block.Time, Hash: b.BlockID.Hash, Observed: observed, Txs: len(b.Block.Txs)})
			p.next++
			p.mu.Unlock()
		}
	}
}
