package app_test

import (
	"math/rand" //detlint:allow test helper, not state machine: the SDK signer takes a rand only to pick a memo
	"strings"
	"testing"

	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/stretchr/testify/require"

	sdkmath "cosmossdk.io/math"

	simtestutil "github.com/cosmos/cosmos-sdk/testutil/sims"
	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/app"
	"github.com/idlegpu/idlegpu/app/apptesting"
	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
	"github.com/idlegpu/idlegpu/x/base/chaincfg"
)

// TestEveryMsgValidatesBasic: every message of this chain's modules has a
// ValidateBasic, so baseapp refuses its stateless errors before the fee.
func TestEveryMsgValidatesBasic(t *testing.T) {
	a := apptesting.NewApp(t)
	n := 0
	for _, url := range a.InterfaceRegistry().ListImplementations(sdk.MsgInterfaceProtoName) {
		if !strings.HasPrefix(url, "/idlegpu.") {
			continue
		}
		msg, err := a.InterfaceRegistry().Resolve(url)
		require.NoError(t, err, url)
		_, ok := msg.(sdk.HasValidateBasic)
		require.True(t, ok, "%s has no ValidateBasic: its stateless errors cost the sender a fee", url)
		n++
	}
	require.Equal(t, 40, n, "the five modules' messages (a new one needs a ValidateBasic, and this count)")
}

// TestStatelessErrorCostsNoFee: a message with a stateless error (a region
// that is no region) is refused in CheckTx and, were a proposer to include
// it, in the block too, both before the ante handler takes the fee: the
// sender's balance and sequence stay as they were. A well-formed message
// the state refuses (a lease that does not exist) passes CheckTx and pays
// its fee in the block, as before.
func TestStatelessErrorCostsNoFee(t *testing.T) {
	accs := apptesting.NewAccounts(1, funds)
	a := apptesting.Setup(t, accs)
	renter := accs[0]
	spec := apptesting.TrainingJob(1, 1_000_000)
	spec.DurationSeconds = 3600
	spec.Regions = []string{"eu-west"}
	bad := signedTx(t, a, renter, &auctiontypes.MsgPostJob{Renter: renter.Address.String(), Spec: spec})
	balance, sequence := fundsOf(a, renter), sequenceOf(a, renter)

	res, err := a.CheckTx(&abci.RequestCheckTx{Tx: bad, Type: abci.CheckTxType_New})
	require.NoError(t, err)
	require.Equal(t, auctiontypes.ModuleName, res.Codespace)
	require.Equal(t, auctiontypes.ErrInvalidRegions.ABCICode(), res.Code, res.Log)
	require.Equal(t, `region "eu-west": want continent[-country[-site]], listed once: invalid regions`, res.Log)
	require.Equal(t, balance, fundsOf(a, renter))
	require.Equal(t, sequence, sequenceOf(a, renter))

	block := apptesting.NextBlock(t, a, bad)
	require.Equal(t, auctiontypes.ErrInvalidRegions.ABCICode(), block.TxResults[0].Code, "DeliverTx refuses it too")
	require.Equal(t, balance, fundsOf(a, renter), "and takes no fee")
	require.Equal(t, sequence, sequenceOf(a, renter))

	stateful := signedTx(t, a, renter, &auctiontypes.MsgCloseLease{Signer: renter.Address.String(), LeaseId: 999})
	res, err = a.CheckTx(&abci.RequestCheckTx{Tx: stateful, Type: abci.CheckTxType_New})
	require.NoError(t, err)
	require.Zero(t, res.Code, res.Log)
	block = apptesting.NextBlock(t, a, stateful)
	require.Equal(t, auctiontypes.ErrLeaseNotFound.ABCICode(), block.TxResults[0].Code)
	require.Equal(t, balance.Sub(apptesting.DefaultFee.AmountOf(chaincfg.BondDenom)), fundsOf(a, renter), "a state error still pays the fee")
	require.Equal(t, sequence+1, sequenceOf(a, renter))
}

// signedTx is msgs signed by acc at its current sequence, encoded.
func signedTx(t *testing.T, a *app.App, acc apptesting.Account, msgs ...sdk.Msg) []byte {
	t.Helper()
	ctx := a.NewContext(true)
	account := a.AccountKeeper.GetAccount(ctx, acc.Address)
	tx, err := simtestutil.GenSignedMockTx(rand.New(rand.NewSource(1)), a.TxConfig(), msgs, apptesting.DefaultFee,
		apptesting.DefaultGas, apptesting.ChainID, []uint64{account.GetAccountNumber()}, []uint64{account.GetSequence()}, acc.PrivKey)
	require.NoError(t, err)
	bz, err := a.TxConfig().TxEncoder()(tx)
	require.NoError(t, err)
	return bz
}

func fundsOf(a *app.App, acc apptesting.Account) sdkmath.Int {
	return a.BankKeeper.GetBalance(a.NewContext(true), acc.Address, chaincfg.BondDenom).Amount
}

func sequenceOf(a *app.App, acc apptesting.Account) uint64 {
	return a.AccountKeeper.GetAccount(a.NewContext(true), acc.Address).GetSequence()
}
