package cmd

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	errorsmod "cosmossdk.io/errors"

	"github.com/cosmos/cosmos-sdk/client"
	sdk "github.com/cosmos/cosmos-sdk/types"
	authtx "github.com/cosmos/cosmos-sdk/x/auth/tx"
)

// The flags of every tx command that can broadcast.
const (
	flagNoWait      = "no-wait"
	flagWaitTimeout = "wait-timeout"
)

// defaultWaitTimeout bounds the wait for a tx's block: many blocks at the
// default one-second commit, so a tx still out after it is stuck.
const defaultWaitTimeout = 30 * time.Second

// waitPoll is how often the node is asked for the tx: twice a block.
const waitPoll = 500 * time.Millisecond

// addWaitFlags adds --no-wait and --wait-timeout to a tx command.
func addWaitFlags(c *cobra.Command) {
	for _, name := range []string{flagNoWait, flagWaitTimeout} {
		if c.Flags().Lookup(name) != nil {
			panic(fmt.Sprintf("%s already has a --%s flag", c.CommandPath(), name))
		}
	}
	c.Flags().Bool(flagNoWait, false, "in sync mode, print the node's mempool check (CheckTx, which runs no messages) instead of waiting for the tx's block")
	c.Flags().Duration(flagWaitTimeout, defaultWaitTimeout, "in sync mode, how long to wait for the tx's block")
}

// txWait is what a tx command does with the node's answer to a sync
// broadcast. CheckTx runs only the ante handler (signatures, fee), so its
// code 0 says nothing of the messages: a withdrawal of coins the sender
// did not hold printed code 0, and failed in its block after the fee was
// paid. Unless --no-wait, the command waits for the tx's block and prints
// the tx as committed; either way it fails (failure) when the chain
// refused or failed the tx.
type txWait struct {
	clientCtx client.Context
	app       string // the binary's name, for the look-up a timeout suggests
	noWait    bool
	timeout   time.Duration
	failure   error // the first tx the chain refused or failed
}

// newTxWait reads the wait flags of cmd, whose client context is clientCtx.
func newTxWait(cmd *cobra.Command, clientCtx client.Context) (*txWait, error) {
	noWait, err := cmd.Flags().GetBool(flagNoWait)
	if err != nil {
		return nil, err
	}
	timeout, err := cmd.Flags().GetDuration(flagWaitTimeout)
	if err != nil {
		return nil, err
	}
	if timeout <= 0 && !noWait {
		return nil, fmt.Errorf("--%s must be positive (or --%s)", flagWaitTimeout, flagNoWait)
	}
	return &txWait{clientCtx: clientCtx, app: cmd.Root().Name(), noWait: noWait, timeout: timeout}, nil
}

// result is the answer to print for the node's answer to a sync broadcast:
// the committed tx where the node took it and the command waits, else the
// node's answer. It records the failure the command ends with.
func (w *txWait) result(res *sdk.TxResponse) *sdk.TxResponse {
	if res.Code != 0 {
		w.fail(txError(res))
		return res
	}
	if w.noWait {
		return res
	}
	committed, err := awaitCommit(w.clientCtx, w.app, res.TxHash, w.timeout)
	if err != nil {
		w.fail(err)
		return res
	}
	if committed.Code != 0 {
		w.fail(txError(committed))
	}
	return committed
}

func (w *txWait) fail(err error) {
	if w.failure == nil {
		w.failure = err
	}
}

// txError is the one line a tx the chain refused or failed ends its
// command with: where (the node's mempool check, or the block), the
// chain's code and codespace, and its log.
func txError(res *sdk.TxResponse) error {
	log := res.RawLog
	if log == "" { // the answer for a tx already in the mempool has none
		log = strings.TrimPrefix(errorsmod.ABCIError(res.Codespace, res.Code, "").Error(), ": ")
	}
	if res.Height == 0 {
		return fmt.Errorf("the node refused tx %s with code %d (%s): %s", res.TxHash, res.Code, res.Codespace, log)
	}
	return fmt.Errorf("tx %s failed in block %d with code %d (%s): %s", res.TxHash, res.Height, res.Code, res.Codespace, log)
}

// errNoTxIndex is a node's answer when it keeps no tx index (tx_index).
const errNoTxIndex = "indexing is disabled"

// awaitCommit asks the node for the tx with hash, through the client
// context's RPC client, until a block holds it or timeout passes. It
// stops at once on a node that indexes no txs: it never could answer.
func awaitCommit(clientCtx client.Context, app, hash string, timeout time.Duration) (*sdk.TxResponse, error) {
	ctx, cancel := context.WithTimeout(clientCtx.GetCmdContextWithFallback(), timeout)
	defer cancel()
	qctx := clientCtx.WithCmdContext(ctx)
	tick := time.NewTicker(waitPoll)
	defer tick.Stop()
	for {
		res, err := authtx.QueryTx(qctx, hash)
		switch {
		case err == nil:
			return res, nil
		case strings.Contains(err.Error(), errNoTxIndex):
			return nil, fmt.Errorf("tx %s is in the node's mempool, but the node keeps no tx index (tx_index), so its result cannot be read here: look it up on another node with `%s q tx %s`, or pass --%s", hash, app, hash, flagNoWait)
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("tx %s is not in a block after %s (--%s): it may still be included; look it up with `%s q tx %s`", hash, timeout, flagWaitTimeout, app, hash)
		case <-tick.C:
		}
	}
}
