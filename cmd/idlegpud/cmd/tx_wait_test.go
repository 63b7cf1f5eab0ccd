package cmd

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	coretypes "github.com/cometbft/cometbft/rpc/core/types"
	cmttypes "github.com/cometbft/cometbft/types"
	"github.com/stretchr/testify/require"

	"github.com/cosmos/cosmos-sdk/client"
	sdk "github.com/cosmos/cosmos-sdk/types"
	moduletestutil "github.com/cosmos/cosmos-sdk/types/module/testutil"
)

// TestTxError: the one line a refused or failed tx ends its command with.
func TestTxError(t *testing.T) {
	for _, tc := range []struct {
		name string
		res  sdk.TxResponse
		want string
	}{
		{"refused by the mempool check", sdk.TxResponse{TxHash: "AB12", Code: 13, Codespace: "sdk",
			RawLog: "insufficient fees; got: 0ugpu required: 500ugpu: insufficient fee"},
			"the node refused tx AB12 with code 13 (sdk): insufficient fees; got: 0ugpu required: 500ugpu: insufficient fee"},
		{"already in the mempool: no log", sdk.TxResponse{TxHash: "AB12", Code: 19, Codespace: "sdk"},
			"the node refused tx AB12 with code 19 (sdk): tx already in mempool"},
		{"an unknown code and no log", sdk.TxResponse{TxHash: "AB12", Code: 77, Codespace: "nowhere"},
			"the node refused tx AB12 with code 77 (nowhere): unknown"},
		{"failed in its block", sdk.TxResponse{TxHash: "CD34", Height: 42, Code: 3, Codespace: "bridge",
			RawLog: "failed to execute message; message index: 0: 999999 is below the minimum withdrawal 1000000: invalid amount"},
			"tx CD34 failed in block 42 with code 3 (bridge): failed to execute message; message index: 0: 999999 is below the minimum withdrawal 1000000: invalid amount"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.EqualError(t, txError(&tc.res), tc.want)
		})
	}
}

// fakeNode answers the two RPC calls a tx look-up makes, Tx and Block;
// any other call panics on the nil interface.
type fakeNode struct {
	client.CometRPC
	tx      []byte
	misses  int   // Tx answers "not found" this many times first
	txErr   error // Tx's answer instead, when set
	lookups int
}

func (n *fakeNode) Tx(_ context.Context, hash []byte, _ bool) (*coretypes.ResultTx, error) {
	n.lookups++
	if n.txErr != nil {
		return nil, n.txErr
	}
	if n.lookups <= n.misses {
		return nil, fmt.Errorf("tx (%X) not found", hash)
	}
	return &coretypes.ResultTx{Hash: hash, Height: 7, Tx: n.tx}, nil
}

func (n *fakeNode) Block(_ context.Context, height *int64) (*coretypes.ResultBlock, error) {
	return &coretypes.ResultBlock{Block: &cmttypes.Block{Header: cmttypes.Header{Height: *height, Time: time.Unix(1_800_000_000, 0).UTC()}}}, nil
}

// waitContext is a client context on node, with a tx config that decodes
// the empty tx the node holds.
func waitContext(t *testing.T, node *fakeNode) client.Context {
	enc := moduletestutil.MakeTestEncodingConfig()
	bz, err := enc.TxConfig.TxEncoder()(enc.TxConfig.NewTxBuilder().GetTx())
	require.NoError(t, err)
	node.tx = bz
	return client.Context{}.WithClient(node).WithTxConfig(enc.TxConfig).WithCodec(enc.Codec).
		WithInterfaceRegistry(enc.InterfaceRegistry).WithCmdContext(context.Background())
}

// TestAwaitCommit: the tx is asked for until a block holds it; a node
// without a tx index is given up on at once; a tx in no block by the
// timeout ends the wait with the hash to look up.
func TestAwaitCommit(t *testing.T) {
	const hash = "0A1B"
	t.Run("in a block after two misses", func(t *testing.T) {
		node := &fakeNode{misses: 2}
		res, err := awaitCommit(waitContext(t, node), "idlegpud", hash, 5*time.Second)
		require.NoError(t, err)
		require.Equal(t, 3, node.lookups)
		require.Equal(t, int64(7), res.Height)
		require.Equal(t, hash, res.TxHash)
		require.Equal(t, "2027-01-15T08:00:00Z", res.Timestamp)
	})
	t.Run("no tx index", func(t *testing.T) {
		node := &fakeNode{txErr: errors.New("transaction indexing is disabled")}
		_, err := awaitCommit(waitContext(t, node), "idlegpud", hash, 5*time.Second)
		require.EqualError(t, err, "tx 0A1B is in the node's mempool, but the node keeps no tx index (tx_index), so its result cannot be read here: "+
			"look it up on another node with `idlegpud q tx 0A1B`, or pass --no-wait")
		require.Equal(t, 1, node.lookups)
	})
	t.Run("never in a block", func(t *testing.T) {
		node := &fakeNode{misses: 1 << 30}
		start := time.Now()
		_, err := awaitCommit(waitContext(t, node), "idlegpud", hash, 1200*time.Millisecond)
		require.EqualError(t, err, "tx 0A1B is not in a block after 1.2s (--wait-timeout): it may still be included; look it up with `idlegpud q tx 0A1B`")
		require.GreaterOrEqual(t, time.Since(start), 1200*time.Millisecond)
		require.InDelta(t, 3, node.lookups, 1, "asked about every %s", waitPoll)
	})
}
