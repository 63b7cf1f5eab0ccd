package ante_test

import (
	"math/rand" //detlint:allow test helper, not state machine: the SDK signer takes a rand only to pick a memo
	"testing"

	cmtproto "github.com/cometbft/cometbft/proto/tendermint/types"
	"github.com/stretchr/testify/require"

	errorsmod "cosmossdk.io/errors"

	storetypes "github.com/cosmos/cosmos-sdk/store/v2/types"
	simtestutil "github.com/cosmos/cosmos-sdk/testutil/sims"
	sdk "github.com/cosmos/cosmos-sdk/types"
	sdkerrors "github.com/cosmos/cosmos-sdk/types/errors"
	txtypes "github.com/cosmos/cosmos-sdk/types/tx"
	authante "github.com/cosmos/cosmos-sdk/x/auth/ante"
	banktypes "github.com/cosmos/cosmos-sdk/x/bank/types"

	"github.com/idlegpu/idlegpu/app"
	"github.com/idlegpu/idlegpu/app/ante"
	"github.com/idlegpu/idlegpu/app/ante/sigverify"
	"github.com/idlegpu/idlegpu/app/apptesting"
	"github.com/idlegpu/idlegpu/x/base/chaincfg"
)

// sendTx is a bank send of 5ugpu from signer to to, signed (SIGN_MODE_DIRECT)
// at sequence seq with fee, encoded.
func sendTx(t *testing.T, a *app.App, signer apptesting.Account, to sdk.AccAddress, seq uint64, fee sdk.Coins) []byte {
	t.Helper()
	acc := a.AccountKeeper.GetAccount(a.NewContext(true), signer.Address)
	require.NotNil(t, acc)
	msg := banktypes.NewMsgSend(signer.Address, to, sdk.NewCoins(sdk.NewInt64Coin(chaincfg.BondDenom, 5)))
	tx, err := simtestutil.GenSignedMockTx(rand.New(rand.NewSource(1)), a.TxConfig(), []sdk.Msg{msg},
		fee, apptesting.DefaultGas, apptesting.ChainID, []uint64{acc.GetAccountNumber()}, []uint64{seq}, signer.PrivKey)
	require.NoError(t, err)
	bz, err := a.TxConfig().TxEncoder()(tx)
	require.NoError(t, err)
	return bz
}

// withSignature returns bz with its first signature replaced by change(sig).
func withSignature(t *testing.T, bz []byte, change func([]byte) []byte) []byte {
	t.Helper()
	var raw txtypes.TxRaw
	require.NoError(t, raw.Unmarshal(bz))
	raw.Signatures[0] = change(append([]byte(nil), raw.Signatures[0]...))
	out, err := raw.Marshal()
	require.NoError(t, err)
	return out
}

func flipBit(sig []byte) []byte {
	sig[7] ^= 0x10
	return sig
}

// TestSignatureVerdicts: through CheckTx and a block, a tx signed as usual
// is accepted and one with a corrupted signature refused with the SDK's
// code; the signature accepted in CheckTx is the one the block reuses.
func TestSignatureVerdicts(t *testing.T) {
	accs := apptesting.NewAccounts(2, startFunds)
	a := apptesting.Setup(t, accs)
	bz := sendTx(t, a, accs[0], accs[1].Address, 0, apptesting.DefaultFee)
	bad := withSignature(t, bz, flipBit)

	check, deliver := checkAndDeliver(t, a, bad)
	for _, res := range []struct {
		codespace, log string
		code           uint32
	}{{check.Codespace, check.Log, check.Code}, {deliver.Codespace, deliver.Log, deliver.Code}} {
		require.Equal(t, sdkerrors.RootCodespace, res.codespace, res.log)
		require.Equal(t, sdkerrors.ErrUnauthorized.ABCICode(), res.code, res.log)
		require.Contains(t, res.log, "signature verification failed")
	}
	require.Zero(t, a.SigVerifier().Len(), "a refusal is not remembered")
	require.Equal(t, startFunds, balances(a, accs[0].Address))

	check, deliver = checkAndDeliver(t, a, bz)
	require.Zero(t, check.Code, check.Log)
	require.Zero(t, deliver.Code, deliver.Log)
	require.Equal(t, 1, a.SigVerifier().Len(), "CheckTx's acceptance, reused by the block")
	require.Equal(t, startFunds.Sub(apptesting.DefaultFee...).Sub(sdk.NewInt64Coin(chaincfg.BondDenom, 5)), balances(a, accs[0].Address))
}

// TestAnteHandlerMatchesSDK: the chain's ante handler and the SDK's default
// one (what the runtime would build), given the same options and the same
// txs, return the same errors, charge the same gas and emit the same events.
func TestAnteHandlerMatchesSDK(t *testing.T) {
	accs := apptesting.NewAccounts(3, startFunds)
	a := apptesting.Setup(t, accs)
	options := authante.HandlerOptions{
		AccountKeeper:   a.AccountKeeper,
		BankKeeper:      a.BankKeeper,
		FeegrantKeeper:  a.FeeGrantKeeper,
		SignModeHandler: a.TxConfig().SignModeHandler(),
		SigGasConsumer:  authante.DefaultSigVerificationGasConsumer,
	}
	sdkHandler, err := authante.NewAnteHandler(options)
	require.NoError(t, err)
	ours, err := ante.NewAnteHandler(ante.HandlerOptions{HandlerOptions: options, SigVerifier: sigverify.NewVerifier(100)})
	require.NoError(t, err)

	minGasPrices, err := sdk.ParseDecCoins(apptesting.GasPrice)
	require.NoError(t, err)
	base := a.NewContextLegacy(true, cmtproto.Header{ChainID: apptesting.ChainID, Height: 2, Time: apptesting.GenesisTime}).
		WithGasMeter(storetypes.NewInfiniteGasMeter()).WithMinGasPrices(minGasPrices)
	finalize := base.WithIsCheckTx(false).WithExecMode(sdk.ExecModeFinalize)
	to := accs[2].Address
	good := sendTx(t, a, accs[0], to, 0, apptesting.DefaultFee)

	testCases := []struct {
		name     string
		ctx      sdk.Context
		simulate bool
		tx       []byte
		expErr   *errorsmod.Error // nil: accepted
	}{
		{name: "signed", ctx: base, tx: good},
		{name: "signed, in a block", ctx: finalize, tx: good},
		{name: "bit flipped", ctx: base, tx: withSignature(t, good, flipBit), expErr: sdkerrors.ErrUnauthorized},
		{name: "bit flipped, in a block", ctx: finalize, tx: withSignature(t, good, flipBit), expErr: sdkerrors.ErrUnauthorized},
		{name: "truncated", ctx: base, tx: withSignature(t, good, func(s []byte) []byte { return s[:10] }), expErr: sdkerrors.ErrUnauthorized},
		{name: "wrong sequence", ctx: base, tx: sendTx(t, a, accs[0], to, 3, apptesting.DefaultFee), expErr: sdkerrors.ErrWrongSequence},
		{name: "fee too low", ctx: base, tx: sendTx(t, a, accs[1], to, 0, sdk.NewCoins(sdk.NewInt64Coin(chaincfg.BondDenom, 1))), expErr: sdkerrors.ErrInsufficientFee},
		{name: "simulated, unsigned", ctx: base.WithExecMode(sdk.ExecModeSimulate), simulate: true, tx: withSignature(t, good, func([]byte) []byte { return nil })},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			tx, err := a.TxConfig().TxDecoder()(tc.tx)
			require.NoError(t, err)
			want := runAnte(tc.ctx.WithTxBytes(tc.tx), sdkHandler, tx, tc.simulate)
			got := runAnte(tc.ctx.WithTxBytes(tc.tx), ours, tx, tc.simulate)
			if tc.expErr == nil {
				require.NoError(t, want.err)
			} else {
				require.ErrorIs(t, want.err, tc.expErr)
			}
			require.NotZero(t, want.gas)
			require.Equal(t, want.gas, got.gas)
			require.Equal(t, want.events, got.events)
			if want.err == nil {
				require.NoError(t, got.err)
				return
			}
			require.Error(t, got.err)
			wantSpace, wantCode, wantLog := errorsmod.ABCIInfo(want.err, false)
			gotSpace, gotCode, gotLog := errorsmod.ABCIInfo(got.err, false)
			require.Equal(t, []any{wantSpace, wantCode, wantLog}, []any{gotSpace, gotCode, gotLog})
		})
	}
}

// anteOutcome is what baseapp takes from an ante handler.
type anteOutcome struct {
	err    error
	gas    storetypes.Gas
	events []sdk.Event
}

// runAnte runs h on a branch of ctx and reads gas and events from the
// context it returns, as baseapp does.
func runAnte(ctx sdk.Context, h sdk.AnteHandler, tx sdk.Tx, simulate bool) anteOutcome {
	ctx, _ = ctx.CacheContext()
	ctx = ctx.WithEventManager(sdk.NewEventManager())
	newCtx, err := h(ctx, tx, simulate)
	if !newCtx.IsZero() {
		ctx = newCtx
	}
	return anteOutcome{err: err, gas: ctx.GasMeter().GasConsumed(), events: ctx.EventManager().Events()}
}
