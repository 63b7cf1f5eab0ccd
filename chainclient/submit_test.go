package chainclient_test

import (
	"context"
	"sync"
	"time"

	sdkmath "cosmossdk.io/math"

	coretypes "github.com/cometbft/cometbft/rpc/core/types"
	cmttypes "github.com/cometbft/cometbft/types"

	"github.com/cosmos/cosmos-sdk/client"
	sdk "github.com/cosmos/cosmos-sdk/types"
	sdkerrors "github.com/cosmos/cosmos-sdk/types/errors"

	"github.com/idlegpu/idlegpu/chainclient"
)

// hookedNode passes everything to a real node, running hooks around the
// first broadcast and recording every CheckTx answer.
type hookedNode struct {
	client.CometRPC

	mu      sync.Mutex
	before  func() // once, before the first broadcast reaches the node
	after   func() // once, after the first broadcast was answered
	results []*coretypes.ResultBroadcastTx
}

func (n *hookedNode) BroadcastTxSync(ctx context.Context, tx cmttypes.Tx) (*coretypes.ResultBroadcastTx, error) {
	n.mu.Lock()
	before, after := n.before, n.after
	n.before, n.after = nil, nil
	n.mu.Unlock()
	if before != nil {
		before()
	}
	res, err := n.CometRPC.BroadcastTxSync(ctx, tx)
	if err == nil {
		n.mu.Lock()
		n.results = append(n.results, res)
		n.mu.Unlock()
	}
	if after != nil {
		after()
	}
	return res, err
}

func (s *ChainSuite) TestSubmitSend() {
	ctx := context.Background()
	c := s.newClient(s.config(s.validatorKey()))
	s.Require().Equal(s.val.Address, c.Address())
	recipient := testAddr("chain-test-recipient")

	res, err := c.Submit(ctx, send(c.Address(), recipient, 1_234_567))
	s.Require().NoError(err)

	s.Require().Zero(res.Code, res.RawLog)
	s.Require().Positive(res.Height)
	s.Require().NotEmpty(res.TxHash)
	s.Require().Positive(res.GasUsed)
	s.Require().GreaterOrEqual(res.GasWanted, res.GasUsed, "the adjusted estimate covers what the tx used")
	s.T().Logf("gas wanted %d, used %d", res.GasWanted, res.GasUsed)
	// The fee is ceil(gas limit × 0.0025 ugpu), to the unit.
	fee := sdkmath.LegacyNewDec(res.GasWanted).Mul(sdkmath.LegacyMustNewDecFromStr("0.0025")).Ceil().TruncateInt()
	s.Require().Equal(fee.String()+"ugpu", eventAttribute(res, "tx", "fee"))

	s.Require().Equal(sdkmath.ZeroInt(), s.balance(c, recipient, res.Height-1))
	s.Require().Equal(sdkmath.NewInt(1_234_567), s.balance(c, recipient, res.Height))
	paid := s.balance(c, c.Address(), res.Height-1).Sub(s.balance(c, c.Address(), res.Height))
	s.Require().Equal(sdkmath.NewInt(1_234_567).Add(fee), paid, "amount plus the fee, to the unit")
}

func (s *ChainSuite) TestSubmitRefreshesStaleSequence() {
	ctx := context.Background()
	logs := &logBuffer{}
	cfg := s.config(s.validatorKey())
	cfg.Logger = logs.logger()
	a := s.newClient(cfg)
	b := s.newClient(s.config(s.validatorKey()))
	to := testAddr("chain-test-seq-stale")

	_, err := a.Submit(ctx, send(a.Address(), to, 1))
	s.Require().NoError(err)
	// Same key, out of band: a's cached sequence is used up.
	_, err = b.Submit(ctx, send(b.Address(), to, 2))
	s.Require().NoError(err)
	s.Require().Zero(logs.count("re-reading the account"))

	res, err := a.Submit(ctx, send(a.Address(), to, 3))
	s.Require().NoError(err)
	s.Require().Zero(res.Code, res.RawLog)
	s.Require().Equal(1, logs.count("re-reading the account"), "the stale sequence was found and refreshed once")
	s.Require().Equal(sdkmath.NewInt(6), s.balance(a, to, res.Height))
}

func (s *ChainSuite) TestSubmitRetriesCheckTxWrongSequence() {
	ctx := context.Background()
	b := s.newClient(s.config(s.validatorKey()))
	to := testAddr("chain-test-seq-check")
	// Between a's simulation and its broadcast, b uses the same sequence:
	// the node's CheckTx, not the simulation, rejects a's first tx.
	node := &hookedNode{CometRPC: s.rpc, before: func() {
		res, err := b.Submit(ctx, send(b.Address(), to, 10))
		s.Require().NoError(err)
		s.Require().Zero(res.Code, res.RawLog)
	}}
	a, err := chainclient.NewWithContext(s.val.ClientCtx.WithClient(node), s.config(s.validatorKey()))
	s.Require().NoError(err)

	res, err := a.Submit(ctx, send(a.Address(), to, 20))
	s.Require().NoError(err)

	s.Require().Zero(res.Code, res.RawLog)
	s.Require().Len(node.results, 2)
	s.Require().Equal("sdk", node.results[0].Codespace)
	s.Require().Equal(uint32(32), node.results[0].Code, "ErrWrongSequence: %s", node.results[0].Log)
	s.Require().Zero(node.results[1].Code, node.results[1].Log)
	s.Require().Equal(sdkmath.NewInt(30), s.balance(a, to, res.Height))
}

func (s *ChainSuite) TestSubmitInsufficientFundsInSimulation() {
	ctx := context.Background()
	c := s.newClient(s.config(s.validatorKey()))
	all := s.balance(c, c.Address(), 0)

	res, err := c.Submit(ctx, send(c.Address(), testAddr("chain-test-too-much"), all.Int64()+1))

	s.Require().Nil(res)
	var txErr *chainclient.TxError
	s.Require().ErrorAs(err, &txErr)
	s.Require().Equal("sdk", txErr.Codespace)
	s.Require().Equal(uint32(5), txErr.Code)
	s.Require().Empty(txErr.TxHash, "rejected before broadcast")
	s.Require().Contains(txErr.Log, "insufficient funds")
	s.Require().ErrorIs(err, sdkerrors.ErrInsufficientFunds)
	s.Require().NotErrorIs(err, sdkerrors.ErrWrongSequence)
}

func (s *ChainSuite) TestSubmitFailsInBlock() {
	ctx := context.Background()
	const key = "chain-test-deliver"
	s.fundedKey(key, 1_010_000)
	sent := make(chan struct{})
	node := &hookedNode{CometRPC: s.rpc, after: func() { close(sent) }}
	b, err := chainclient.NewWithContext(s.val.ClientCtx.WithClient(node), s.config(key))
	s.Require().NoError(err)
	logs := &logBuffer{}
	cfg := s.config(key)
	cfg.Logger = logs.logger()
	a := s.newClient(cfg)
	to := testAddr("chain-test-deliver-to")

	// b's send of 600,000 is in the mempool, not yet in a block, when a
	// sends another 600,000: a's simulation and CheckTx pass (they do not
	// run b's message), and a's tx fails when the block runs it after b's.
	s.waitNewBlock()
	type result struct {
		res *sdk.TxResponse
		err error
	}
	bDone := make(chan result, 1)
	go func() {
		res, err := b.Submit(ctx, send(b.Address(), to, 600_000))
		bDone <- result{res, err}
	}()
	select {
	case <-sent:
	case <-time.After(30 * time.Second):
		s.FailNow("b never broadcast")
	}
	res, err := a.Submit(ctx, send(a.Address(), to, 600_000))

	var txErr *chainclient.TxError
	s.Require().ErrorAs(err, &txErr)
	s.Require().ErrorIs(err, sdkerrors.ErrInsufficientFunds)
	s.Require().Equal("sdk", txErr.Codespace)
	s.Require().Equal(uint32(5), txErr.Code)
	s.Require().NotNil(res, "the included tx comes with the error")
	s.Require().Equal(res.TxHash, txErr.TxHash)
	s.Require().Positive(res.Height)
	s.Require().Equal(uint32(5), res.Code)
	bRes := <-bDone
	s.Require().NoError(bRes.err)
	s.Require().Zero(bRes.res.Code, bRes.res.RawLog)
	s.Require().Equal(1, logs.count("re-reading the account"), "a found b's pending tx by its sequence")

	// The failed tx used its sequence; a's next tx needs no refresh.
	res, err = a.Submit(ctx, send(a.Address(), to, 1_000))
	s.Require().NoError(err)
	s.Require().Equal(1, logs.count("re-reading the account"))
	s.Require().Equal(sdkmath.NewInt(601_000), s.balance(a, to, res.Height))
}

func (s *ChainSuite) TestSubmitWaitsOutNodeOutage() {
	ctx := context.Background()
	p := newProxy(s.T(), s.val.RPCAddress)
	cfg := s.config(s.validatorKey())
	cfg.RPC = p.url()
	c := s.newClient(cfg)
	to := testAddr("chain-test-outage-to")

	p.cut(2 * time.Second)
	start := time.Now()
	res, err := c.Submit(ctx, send(c.Address(), to, 7))

	s.Require().NoError(err)
	s.Require().Zero(res.Code, res.RawLog)
	s.Require().GreaterOrEqual(time.Since(start), 2*time.Second, "it waited for the node")
	s.Require().Positive(p.refused.Load(), "connections were refused during the outage")
	s.Require().Equal(sdkmath.NewInt(7), s.balance(c, to, res.Height))
}

func (s *ChainSuite) TestSubmitHonoursContext() {
	p := newProxy(s.T(), s.val.RPCAddress)
	cfg := s.config(s.validatorKey())
	cfg.RPC = p.url()
	c := s.newClient(cfg)
	p.cut(time.Minute)

	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	res, err := c.Submit(ctx, send(c.Address(), testAddr("chain-test-never-to"), 1))

	s.Require().Nil(res)
	s.Require().ErrorIs(err, context.DeadlineExceeded)
}

// eventAttribute is the value of the first attribute key of an event of
// type typ in the tx's events.
func eventAttribute(res *sdk.TxResponse, typ, key string) string {
	for _, ev := range res.Events {
		if ev.Type != typ {
			continue
		}
		for _, a := range ev.Attributes {
			if a.Key == key {
				return a.Value
			}
		}
	}
	return ""
}

// TestSubmitDoesNotWaitForAnotherTxsBlock: a second tx of the same client
// is signed and broadcast while the first waits for its block, at the next
// sequence: both land in the same block, neither refused (an audit's answer
// never waits behind a proof batch).
func (s *ChainSuite) TestSubmitDoesNotWaitForAnotherTxsBlock() {
	ctx := context.Background()
	sent := make(chan struct{})
	node := &hookedNode{CometRPC: s.rpc, after: func() { close(sent) }}
	c, err := chainclient.NewWithContext(s.val.ClientCtx.WithClient(node), s.config(s.validatorKey()))
	s.Require().NoError(err)
	to := testAddr("chain-test-pipelined")

	s.waitNewBlock()
	type result struct {
		res *sdk.TxResponse
		err error
	}
	first := make(chan result, 1)
	go func() {
		res, err := c.Submit(ctx, send(c.Address(), to, 1))
		first <- result{res, err}
	}()
	select {
	case <-sent:
	case <-time.After(30 * time.Second):
		s.FailNow("the first tx was never broadcast")
	}
	second, err := c.Submit(ctx, send(c.Address(), to, 2))
	s.Require().NoError(err)
	one := <-first
	s.Require().NoError(one.err)

	s.Require().Zero(one.res.Code, one.res.RawLog)
	s.Require().Zero(second.Code, second.RawLog)
	s.Require().Len(node.results, 2, "each accepted at its first broadcast: consecutive sequences")
	s.Require().Equal(one.res.Height, second.Height, "the second was broadcast before the first's block")
	s.Require().Equal(sdkmath.NewInt(3), s.balance(c, to, second.Height))
}
