package apptesting

import (
	"math/rand" //detlint:allow test helper, not state machine: the SDK signer takes a rand only to pick a memo
	"testing"

	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/stretchr/testify/require"

	simtestutil "github.com/cosmos/cosmos-sdk/testutil/sims"
	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/app"
	"github.com/idlegpu/idlegpu/x/base/chaincfg"
)

// DefaultGas is the gas limit of transactions DeliverTx signs.
const DefaultGas = 400_000

// DefaultFee pays DefaultGas at the node's default minimum gas price.
var DefaultFee = sdk.NewCoins(sdk.NewInt64Coin(chaincfg.BondDenom, 1_000))

// DeliverTx signs msgs with signer's key (SIGN_MODE_DIRECT, the signer's
// current account number and sequence), includes the tx in the next block and
// returns its result. It fails the test only if the block cannot be made: a
// rejected tx is returned with its code and log for the caller to assert.
func DeliverTx(tb testing.TB, a *app.App, signer Account, msgs ...sdk.Msg) *abci.ExecTxResult {
	tb.Helper()
	ctx := a.NewContext(true)
	acc := a.AccountKeeper.GetAccount(ctx, signer.Address)
	require.NotNil(tb, acc, "signer %s has no account", signer.Address)

	tx, err := simtestutil.GenSignedMockTx(
		rand.New(rand.NewSource(1)), // only picks the memo
		a.TxConfig(), msgs, DefaultFee, DefaultGas, ChainID,
		[]uint64{acc.GetAccountNumber()}, []uint64{acc.GetSequence()}, signer.PrivKey,
	)
	require.NoError(tb, err)
	bz, err := a.TxConfig().TxEncoder()(tx)
	require.NoError(tb, err)

	res := NextBlock(tb, a, bz)
	require.Len(tb, res.TxResults, 1)
	return res.TxResults[0]
}
