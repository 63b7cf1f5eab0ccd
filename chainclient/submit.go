package chainclient

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	rpcclient "github.com/cometbft/cometbft/rpc/client"

	errorsmod "cosmossdk.io/errors"

	"github.com/cosmos/cosmos-sdk/client/tx"
	sdk "github.com/cosmos/cosmos-sdk/types"
	sdkerrors "github.com/cosmos/cosmos-sdk/types/errors"
	authtx "github.com/cosmos/cosmos-sdk/x/auth/tx"
)

const (
	// maxSequenceRetries bounds the re-signing after "account sequence
	// mismatch": one refresh fixes a stale cache; more only happen while
	// another sender keeps using the key.
	maxSequenceRetries = 3

	// inclusionPoll is how often Submit asks whether its tx is in a block.
	inclusionPoll = 250 * time.Millisecond

	// simulatePath is baseapp's own simulation query. Unlike the tx
	// service's Simulate, whose failures reach the client as a generic
	// "unknown request", it keeps the failing error's codespace and code.
	simulatePath = "/app/simulate"
)

// Submit signs msgs with the client's key as one tx with a gas limit of
// ceil(simulated gas × GasAdjustment) and a fee of ceil(gas limit × gas
// price), broadcasts it (sync) and waits until it is in a block. It returns the included tx's response (height,
// gas, events). A tx the chain rejects is a *TxError: before broadcast
// (simulation), in CheckTx, or in the block, in which case the included
// response is returned with it. A node that cannot be reached is retried
// with backoff until ctx ends. A tx not found in a block within TxTimeout
// gives ErrNotIncluded with the broadcast response (its hash).
//
// Concurrent calls are serialised only while they sign and broadcast (the
// local sequence allows one tx at a time into the mempool); each waits for
// its block on its own. Several txs of the key are then in the mempool at
// once, at consecutive sequences, and a block takes them in order: an
// audit's answer never waits for a proof batch's block.
func (c *Client) Submit(ctx context.Context, msgs ...sdk.Msg) (*sdk.TxResponse, error) {
	if len(msgs) == 0 {
		return nil, errors.New("chain: no messages to submit")
	}
	// Invalid messages would fail every try the same way; say so before
	// touching the node.
	for _, m := range msgs {
		if v, ok := m.(sdk.HasValidateBasic); ok {
			if err := v.ValidateBasic(); err != nil {
				return nil, err
			}
		}
	}
	res, err := c.broadcast(ctx, msgs)
	if err != nil {
		return nil, err
	}
	return c.waitIncluded(ctx, res)
}

// broadcast signs msgs and broadcasts them until the node accepted the tx
// into its mempool (CheckTx passed), holding the client's sequence while
// it does; it returns the broadcast response.
func (c *Client) broadcast(ctx context.Context, msgs []sdk.Msg) (*sdk.TxResponse, error) {
	select {
	case c.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-c.sem }()

	var (
		bo         backoff
		seqRetries int
		// txBytes is the signed tx until it is known to be rejected: a tx
		// that may have reached the node is sent again as it is, never
		// re-signed, so it cannot be included twice.
		txBytes []byte
		// unsure is set once a broadcast of txBytes lost its answer.
		unsure bool
	)
	retry := func(err error) error {
		c.log.Warn("chain: node unreachable, retrying", "err", err, "after", max(bo.next, backoffStart))
		return bo.wait(ctx)
	}
	for {
		if txBytes == nil {
			var err error
			txBytes, err = c.sign(ctx, msgs)
			var txErr *TxError
			switch {
			case err == nil:
			case errors.As(err, &txErr) && txErr.wrongSequence() && seqRetries < maxSequenceRetries:
				seqRetries++
				c.resync(txErr.Log)
				continue
			case transient(ctx, err):
				if err := retry(err); err != nil {
					return nil, err
				}
				continue
			case ctx.Err() != nil:
				return nil, ctx.Err()
			default:
				return nil, err
			}
		}

		res, err := c.clientCtx.WithCmdContext(ctx).BroadcastTxSync(txBytes)
		if err != nil {
			if transient(ctx, err) {
				unsure = true
				if err := retry(err); err != nil {
					return nil, err
				}
				continue
			}
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, fmt.Errorf("chain: broadcast: %w", err)
		}
		bo.reset()

		txErr := checkTxError(res)
		switch {
		// In the mempool cache: an earlier send of these bytes arrived.
		case txErr == nil, txErr.is(sdkerrors.ErrTxInMempoolCache):
			c.seq++
			return res, nil
		case txErr.is(sdkerrors.ErrMempoolIsFull):
			if err := retry(txErr); err != nil {
				return nil, err
			}
		// Our earlier send arrived and is already in a block, so its
		// sequence is used: done, not a reason to sign again.
		case txErr.wrongSequence() && unsure && c.included(ctx, res.TxHash):
			c.seq++
			return res, nil
		case txErr.wrongSequence() && seqRetries < maxSequenceRetries:
			seqRetries++
			c.resync(txErr.Log)
			txBytes, unsure = nil, false
		default:
			return nil, txErr
		}
	}
}

// checkTxError is the CheckTx rejection in a broadcast response, or nil.
func checkTxError(res *sdk.TxResponse) *TxError {
	if res.Code == errorsmod.SuccessABCICode {
		return nil
	}
	return &TxError{Codespace: res.Codespace, Code: res.Code, Log: res.RawLog, TxHash: res.TxHash}
}

// sign builds the tx at the cached account sequence (fetched first if
// needed), with its gas from a simulation, and returns it signed and encoded.
func (c *Client) sign(ctx context.Context, msgs []sdk.Msg) ([]byte, error) {
	if !c.accLoaded {
		if err := c.loadAccount(ctx); err != nil {
			return nil, err
		}
	}
	txf := tx.Factory{}.
		WithTxConfig(c.clientCtx.TxConfig).
		WithAccountRetriever(c.clientCtx.AccountRetriever).
		WithKeybase(c.clientCtx.Keyring).
		WithChainID(c.cfg.ChainID).
		WithFromName(c.cfg.KeyName).
		WithGasAdjustment(c.cfg.GasAdjustment).
		WithGasPrices(c.cfg.GasPrices).
		WithSimulateAndExecute(true). // simulate with the key's real public key
		WithAccountNumber(c.accNum).
		WithSequence(c.seq)

	// The simulated tx pays a fee of one unit: with none, the fee transfer
	// (balance reads and writes, about a fifth of a bank send's gas) would
	// be skipped in the simulation but charged in the block.
	simBytes, err := txf.WithGasPrices("").WithFees("1" + c.gasPrice.Denom).BuildSimTx(msgs...)
	if err != nil {
		return nil, fmt.Errorf("chain: build simulation tx: %w", err)
	}
	gasUsed, err := c.simulate(ctx, simBytes)
	if err != nil {
		return nil, err
	}
	// The factory derives the fee from the gas limit: ceil(gas × price).
	txf = txf.WithGas(uint64(math.Ceil(float64(gasUsed) * c.cfg.GasAdjustment)))

	b, err := txf.BuildUnsignedTx(msgs...)
	if err != nil {
		return nil, fmt.Errorf("chain: build tx: %w", err)
	}
	if err := tx.Sign(ctx, txf, c.cfg.KeyName, b, true); err != nil {
		return nil, fmt.Errorf("chain: sign tx: %w", err)
	}
	return c.clientCtx.TxConfig.TxEncoder()(b.GetTx())
}

// simulate runs the tx against the node's mempool state and returns the
// gas it used, or the chain's rejection as a *TxError.
func (c *Client) simulate(ctx context.Context, txBytes []byte) (uint64, error) {
	res, err := c.clientCtx.Client.ABCIQueryWithOptions(ctx, simulatePath, txBytes, rpcclient.ABCIQueryOptions{})
	if err != nil {
		return 0, err
	}
	if res.Response.Code != errorsmod.SuccessABCICode {
		return 0, &TxError{Codespace: res.Response.Codespace, Code: res.Response.Code, Log: res.Response.Log}
	}
	// Only the gas is needed; decoding just it avoids resolving the Any
	// message responses the simulation result also carries.
	var sim struct {
		GasInfo struct {
			GasUsed uint64 `json:"gas_used,string"`
		} `json:"gas_info"`
	}
	if err := json.Unmarshal(res.Response.Value, &sim); err != nil {
		return 0, fmt.Errorf("chain: decode simulation result: %w", err)
	}
	return sim.GasInfo.GasUsed, nil
}

// loadAccount fetches the key's account number and sequence from the chain.
func (c *Client) loadAccount(ctx context.Context) error {
	num, seq, err := c.clientCtx.AccountRetriever.GetAccountNumberSequence(c.clientCtx.WithCmdContext(ctx), c.Address())
	if err != nil {
		if transient(ctx, err) {
			return err
		}
		return fmt.Errorf("chain: account %s: %w", c.Address(), err)
	}
	// The committed state lags the mempool: a wrong-sequence answer may
	// already have named the sequence the node expects next.
	c.accNum, c.seq, c.accLoaded = num, max(seq, c.seq), true
	return nil
}

// resync drops the cached sequence after a wrong-sequence rejection. The
// next sign fetches the account again and uses the higher of the chain's
// sequence and the one the rejection said the node expects.
func (c *Client) resync(log string) {
	c.accLoaded = false
	c.seq = 0
	if seq, ok := expectedSequence(log); ok {
		c.seq = seq
	}
	c.log.Info("chain: wrong account sequence, re-reading the account", "log", log)
}

// included reports whether the tx with this hash is in a block.
func (c *Client) included(ctx context.Context, hash string) bool {
	bz, err := hex.DecodeString(hash)
	if err != nil {
		return false
	}
	_, err = c.clientCtx.Client.Tx(ctx, bz, false)
	return err == nil
}

// waitIncluded polls for the broadcast tx until it is in a block or
// TxTimeout passes.
func (c *Client) waitIncluded(ctx context.Context, sync *sdk.TxResponse) (*sdk.TxResponse, error) {
	wctx, cancel := context.WithTimeout(ctx, c.cfg.TxTimeout)
	defer cancel()
	qctx := c.clientCtx.WithCmdContext(wctx)
	tick := time.NewTicker(inclusionPoll)
	defer tick.Stop()
	for {
		select {
		case <-wctx.Done():
			if err := ctx.Err(); err != nil {
				return sync, err
			}
			return sync, fmt.Errorf("%w: %s after %s", ErrNotIncluded, sync.TxHash, c.cfg.TxTimeout)
		case <-tick.C:
		}
		res, err := authtx.QueryTx(qctx, sync.TxHash)
		switch {
		case err == nil && res.Code != errorsmod.SuccessABCICode:
			return res, &TxError{Codespace: res.Codespace, Code: res.Code, Log: res.RawLog, TxHash: res.TxHash}
		case err == nil:
			return res, nil
		case strings.Contains(err.Error(), "not found"), transient(wctx, err), wctx.Err() != nil:
			// not in a block yet, or the node is briefly away: ask again
		default:
			return sync, fmt.Errorf("chain: query tx %s: %w", sync.TxHash, err)
		}
	}
}
