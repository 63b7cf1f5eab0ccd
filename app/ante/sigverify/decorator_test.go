package sigverify_test

import (
	"context"
	"math/rand" //detlint:allow test helper, not state machine: only a memo's length and text
	"testing"
	"time"

	cmtproto "github.com/cometbft/cometbft/proto/tendermint/types"
	"github.com/stretchr/testify/require"

	errorsmod "cosmossdk.io/errors"

	"github.com/cosmos/cosmos-sdk/crypto/keys/ed25519"
	kmultisig "github.com/cosmos/cosmos-sdk/crypto/keys/multisig"
	"github.com/cosmos/cosmos-sdk/crypto/keys/secp256k1"
	cryptotypes "github.com/cosmos/cosmos-sdk/crypto/types"
	"github.com/cosmos/cosmos-sdk/crypto/types/multisig"
	storetypes "github.com/cosmos/cosmos-sdk/store/v2/types"
	sdk "github.com/cosmos/cosmos-sdk/types"
	sdkerrors "github.com/cosmos/cosmos-sdk/types/errors"
	"github.com/cosmos/cosmos-sdk/types/tx/signing"
	authante "github.com/cosmos/cosmos-sdk/x/auth/ante"
	authsigning "github.com/cosmos/cosmos-sdk/x/auth/signing"
	banktypes "github.com/cosmos/cosmos-sdk/x/bank/types"

	"github.com/idlegpu/idlegpu/app"
	"github.com/idlegpu/idlegpu/app/ante/sigverify"
	"github.com/idlegpu/idlegpu/app/apptesting"
	"github.com/idlegpu/idlegpu/x/base/chaincfg"
)

const (
	direct = signing.SignMode_SIGN_MODE_DIRECT
	amino  = signing.SignMode_SIGN_MODE_LEGACY_AMINO_JSON
)

// txSigner signs for one account: with its single key, or as a multisig of
// keys under pub.
type txSigner struct {
	keys        []cryptotypes.PrivKey
	pub         cryptotypes.PubKey
	accNum, seq uint64
}

// fixture is a chain whose accounts have their keys set, as after their
// first tx, with contexts to run a decorator in.
type fixture struct {
	app      *app.App
	ctx      sdk.Context // block 2's check state, keys set
	single   []txSigner  // secp256k1 accounts 0 and 1
	noPubKey txSigner    // an account that never signed
	multi    txSigner    // 2-of-2 secp256k1 multisig
	ed       txSigner    // an ed25519 account
}

func newFixture(t *testing.T) fixture {
	accs := apptesting.NewAccounts(3, sdk.NewCoins(sdk.NewInt64Coin(chaincfg.BondDenom, 1_000_000_000)))
	a := apptesting.Setup(t, accs)
	ctx, _ := a.NewContextLegacy(true, cmtproto.Header{ChainID: apptesting.ChainID, Height: 2, Time: apptesting.GenesisTime}).CacheContext()

	setKey := func(pub cryptotypes.PubKey) txSigner {
		addr := sdk.AccAddress(pub.Address())
		acc := a.AccountKeeper.GetAccount(ctx, addr)
		if acc == nil {
			acc = a.AccountKeeper.NewAccountWithAddress(ctx, addr)
		}
		require.NoError(t, acc.SetPubKey(pub))
		a.AccountKeeper.SetAccount(ctx, acc)
		return txSigner{pub: pub, accNum: acc.GetAccountNumber(), seq: acc.GetSequence()}
	}
	f := fixture{app: a, ctx: ctx}
	for _, acc := range accs[:2] {
		s := setKey(acc.PrivKey.PubKey())
		s.keys = []cryptotypes.PrivKey{acc.PrivKey}
		f.single = append(f.single, s)
	}
	last := a.AccountKeeper.GetAccount(ctx, accs[2].Address)
	f.noPubKey = txSigner{keys: []cryptotypes.PrivKey{accs[2].PrivKey}, pub: accs[2].PrivKey.PubKey(), accNum: last.GetAccountNumber()}

	k1, k2 := testKey(10), testKey(11)
	f.multi = setKey(kmultisig.NewLegacyAminoPubKey(2, []cryptotypes.PubKey{k1.PubKey(), k2.PubKey()}))
	f.multi.keys = []cryptotypes.PrivKey{k1, k2}

	edKey := ed25519.GenPrivKeyFromSecret([]byte("ed"))
	f.ed = setKey(edKey.PubKey())
	f.ed.keys = []cryptotypes.PrivKey{edKey}
	return f
}

// tx is a bank send from each signer, signed in mode for chainID.
func (f fixture) tx(t *testing.T, mode signing.SignMode, chainID string, signers ...txSigner) authsigning.Tx {
	t.Helper()
	txConfig := f.app.TxConfig()
	b := txConfig.NewTxBuilder()
	to := sdk.AccAddress(testKey(99).PubKey().Address())
	var msgs []sdk.Msg
	for _, s := range signers {
		msgs = append(msgs, banktypes.NewMsgSend(sdk.AccAddress(s.pub.Address()), to, sdk.NewCoins(sdk.NewInt64Coin(chaincfg.BondDenom, 1))))
	}
	require.NoError(t, b.SetMsgs(msgs...))
	b.SetFeeAmount(apptesting.DefaultFee)
	b.SetGasLimit(apptesting.DefaultGas)
	r := rand.New(rand.NewSource(1))
	b.SetMemo(string(rune('a' + r.Intn(26))))

	// Signer infos first (DIRECT signs over them), then the signatures.
	sigData := func(s txSigner, sigs [][]byte) signing.SignatureData {
		if len(s.keys) == 1 {
			var sig []byte
			if sigs != nil {
				sig = sigs[0]
			}
			return &signing.SingleSignatureData{SignMode: mode, Signature: sig}
		}
		data := multisig.NewMultisig(len(s.keys))
		for i, k := range s.keys {
			var sig []byte
			if sigs != nil {
				sig = sigs[i]
			}
			require.NoError(t, multisig.AddSignatureV2(data, signing.SignatureV2{
				PubKey: k.PubKey(), Data: &signing.SingleSignatureData{SignMode: mode, Signature: sig},
			}, s.pub.(*kmultisig.LegacyAminoPubKey).GetPubKeys()))
		}
		return data
	}
	v2 := make([]signing.SignatureV2, len(signers))
	for i, s := range signers {
		v2[i] = signing.SignatureV2{PubKey: s.pub, Data: sigData(s, nil), Sequence: s.seq}
	}
	require.NoError(t, b.SetSignatures(v2...))
	for i, s := range signers {
		bz, err := authsigning.GetSignBytesAdapter(context.Background(), txConfig.SignModeHandler(), mode, authsigning.SignerData{
			Address: sdk.AccAddress(s.pub.Address()).String(), ChainID: chainID,
			AccountNumber: s.accNum, Sequence: s.seq, PubKey: s.pub,
		}, b.GetTx())
		require.NoError(t, err)
		var sigs [][]byte
		for _, k := range s.keys {
			sig, err := k.Sign(bz)
			require.NoError(t, err)
			sigs = append(sigs, sig)
		}
		v2[i].Data = sigData(s, sigs)
	}
	require.NoError(t, b.SetSignatures(v2...))
	return b.GetTx()
}

// withSig returns tx with signer i's signature (its first, in a multisig)
// replaced by change(sig).
func (f fixture) withSig(t *testing.T, tx authsigning.Tx, i int, change func([]byte) []byte) authsigning.Tx {
	t.Helper()
	tx = f.clone(t, tx)
	sigs, err := tx.GetSignaturesV2()
	require.NoError(t, err)
	single, ok := sigs[i].Data.(*signing.SingleSignatureData)
	if !ok {
		single = sigs[i].Data.(*signing.MultiSignatureData).Signatures[0].(*signing.SingleSignatureData)
	}
	single.Signature = change(single.Signature)
	b, err := f.app.TxConfig().WrapTxBuilder(tx)
	require.NoError(t, err)
	require.NoError(t, b.SetSignatures(sigs...))
	return b.GetTx()
}

// clone returns a copy of tx: a builder wraps the tx it is given, so
// changing one in place would change the original.
func (f fixture) clone(t *testing.T, tx sdk.Tx) authsigning.Tx {
	t.Helper()
	bz, err := f.app.TxConfig().TxEncoder()(tx)
	require.NoError(t, err)
	out, err := f.app.TxConfig().TxDecoder()(bz)
	require.NoError(t, err)
	return out.(authsigning.Tx)
}

// outcome is what a decorator did with a tx.
type outcome struct {
	err    error
	gas    storetypes.Gas
	called bool // next ran
}

func run(ctx sdk.Context, d sdk.AnteDecorator, tx sdk.Tx, simulate bool) outcome {
	ctx, _ = ctx.CacheContext()
	ctx = ctx.WithGasMeter(storetypes.NewGasMeter(10_000_000)).WithEventManager(sdk.NewEventManager())
	var o outcome
	_, o.err = d.AnteHandle(ctx, tx, simulate, func(ctx sdk.Context, _ sdk.Tx, _ bool) (sdk.Context, error) {
		o.called = true
		return ctx, nil
	})
	o.gas = ctx.GasMeter().GasConsumed()
	return o
}

func flip(sig []byte) []byte { return flipBit(sig, 100) }

// TestDecoratorMatchesSDK: for valid and invalid signatures of every kind,
// in every mode, the decorator does what the SDK's does — same error (code
// and text), same gas, same call to the next decorator — and checks single
// secp256k1 signatures, and only those, with the Verifier.
func TestDecoratorMatchesSDK(t *testing.T) {
	f := newFixture(t)
	handler := f.app.TxConfig().SignModeHandler()
	sdkDecorator := authante.NewSigVerificationDecorator(f.app.AccountKeeper, handler)
	a0, a1 := f.single[0], f.single[1]
	signed := f.tx(t, direct, apptesting.ChainID, a0)
	wrongSeq, wrongAccNum := a0, a0
	wrongSeq.seq++
	wrongAccNum.accNum++
	otherKey := a0
	otherKey.keys = a1.keys
	unordered := func() sdk.Tx {
		b, err := f.app.TxConfig().WrapTxBuilder(f.clone(t, signed))
		require.NoError(t, err)
		b.SetUnordered(true)
		b.SetTimeoutTimestamp(apptesting.GenesisTime.Add(time.Minute))
		return b.GetTx()
	}()
	check := f.ctx
	finalize := f.ctx.WithIsCheckTx(false).WithExecMode(sdk.ExecModeFinalize)
	recheck := f.ctx.WithIsReCheckTx(true).WithExecMode(sdk.ExecModeReCheck)
	noSigverify := f.ctx.WithIsSigverifyTx(false)
	simulate := f.ctx.WithExecMode(sdk.ExecModeSimulate)

	testCases := []struct {
		name     string
		ctx      sdk.Context
		simulate bool
		tx       sdk.Tx
		expErr   *errorsmod.Error // nil: accepted
		checks   int64            // single secp256k1 signatures the Verifier checks
	}{
		{name: "direct", ctx: check, tx: signed, checks: 1},
		{name: "direct, in a block", ctx: finalize, tx: signed, checks: 1},
		{name: "direct, bit flipped", ctx: check, tx: f.withSig(t, signed, 0, flip), expErr: sdkerrors.ErrUnauthorized, checks: 1},
		{name: "direct, high S", ctx: finalize, tx: f.withSig(t, signed, 0, highS), expErr: sdkerrors.ErrUnauthorized, checks: 1},
		{name: "direct, 65 bytes", ctx: check, tx: f.withSig(t, signed, 0, func(s []byte) []byte { return append(s, 0) }), expErr: sdkerrors.ErrUnauthorized},
		{name: "direct, empty", ctx: check, tx: f.withSig(t, signed, 0, func([]byte) []byte { return nil }), expErr: sdkerrors.ErrUnauthorized},
		{name: "wrong sequence", ctx: check, tx: f.tx(t, direct, apptesting.ChainID, wrongSeq), expErr: sdkerrors.ErrWrongSequence},
		{name: "wrong account number", ctx: check, tx: f.tx(t, direct, apptesting.ChainID, wrongAccNum), expErr: sdkerrors.ErrUnauthorized, checks: 1},
		{name: "another chain", ctx: check, tx: f.tx(t, direct, "other-chain", a0), expErr: sdkerrors.ErrUnauthorized, checks: 1},
		{name: "signed by another key", ctx: check, tx: f.tx(t, direct, apptesting.ChainID, otherKey), expErr: sdkerrors.ErrUnauthorized, checks: 1},
		{name: "account without a key", ctx: check, tx: f.tx(t, direct, apptesting.ChainID, f.noPubKey), expErr: sdkerrors.ErrInvalidPubKey},
		{name: "amino JSON", ctx: check, tx: f.tx(t, amino, apptesting.ChainID, a0), checks: 1},
		{name: "amino JSON, bit flipped", ctx: check, tx: f.withSig(t, f.tx(t, amino, apptesting.ChainID, a0), 0, flip), expErr: sdkerrors.ErrUnauthorized, checks: 1},
		{name: "two signers", ctx: check, tx: f.tx(t, direct, apptesting.ChainID, a0, a1), checks: 2},
		{name: "two signers, second bad", ctx: check, tx: f.withSig(t, f.tx(t, direct, apptesting.ChainID, a0, a1), 1, flip), expErr: sdkerrors.ErrUnauthorized, checks: 2},
		{name: "multisig", ctx: check, tx: f.tx(t, amino, apptesting.ChainID, f.multi)},
		{name: "multisig, bit flipped", ctx: check, tx: f.withSig(t, f.tx(t, amino, apptesting.ChainID, f.multi), 0, flip), expErr: sdkerrors.ErrUnauthorized},
		{name: "multisig and single", ctx: check, tx: f.tx(t, amino, apptesting.ChainID, f.multi, a0), checks: 1},
		{name: "ed25519", ctx: check, tx: f.tx(t, direct, apptesting.ChainID, f.ed)},
		{name: "ed25519, bit flipped", ctx: check, tx: f.withSig(t, f.tx(t, direct, apptesting.ChainID, f.ed), 0, flip), expErr: sdkerrors.ErrUnauthorized},
		{name: "recheck skips the check", ctx: recheck, tx: f.withSig(t, signed, 0, flip)},
		{name: "simulation skips the check", ctx: simulate, simulate: true, tx: f.withSig(t, signed, 0, func([]byte) []byte { return nil })},
		{name: "sigverify off skips the check", ctx: noSigverify, tx: f.withSig(t, signed, 0, flip)},
		{name: "unordered, not enabled", ctx: check, tx: unordered, expErr: sdkerrors.ErrNotSupported},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			verify, calls := counting(sigverify.VerifyDigest)
			ours := sigverify.NewSigVerificationDecorator(f.app.AccountKeeper, handler, sigverify.NewVerifierWith(100, verify))
			want := run(tc.ctx, sdkDecorator, tc.tx, tc.simulate)
			got := run(tc.ctx, ours, tc.tx, tc.simulate)

			if tc.expErr == nil {
				require.NoError(t, want.err)
			} else {
				require.ErrorIs(t, want.err, tc.expErr)
			}
			require.Equal(t, want.called, got.called)
			require.Equal(t, want.gas, got.gas)
			if want.err == nil {
				require.NoError(t, got.err)
			} else {
				require.Error(t, got.err)
				wantSpace, wantCode, wantLog := errorsmod.ABCIInfo(want.err, false)
				gotSpace, gotCode, gotLog := errorsmod.ABCIInfo(got.err, false)
				require.Equal(t, []any{wantSpace, wantCode, wantLog}, []any{gotSpace, gotCode, gotLog})
				require.Equal(t, want.err.Error(), got.err.Error())
			}
			require.Equal(t, tc.checks, calls.Load(), "signatures checked by the Verifier")
		})
	}
}

// TestDecoratorVerifiesOnce: a signature accepted in CheckTx is not checked
// again in the block; a refused one is checked each time.
func TestDecoratorVerifiesOnce(t *testing.T) {
	f := newFixture(t)
	verify, calls := counting(sigverify.VerifyDigest)
	d := sigverify.NewSigVerificationDecorator(f.app.AccountKeeper, f.app.TxConfig().SignModeHandler(), sigverify.NewVerifierWith(100, verify))
	finalize := f.ctx.WithIsCheckTx(false).WithExecMode(sdk.ExecModeFinalize)
	tx := f.tx(t, direct, apptesting.ChainID, f.single[0])
	bad := f.withSig(t, tx, 0, flip)

	require.NoError(t, run(f.ctx, d, tx, false).err)
	require.EqualValues(t, 1, calls.Load())
	require.NoError(t, run(finalize, d, tx, false).err)
	require.EqualValues(t, 1, calls.Load(), "the block reuses CheckTx's check")

	for i := range 2 {
		require.ErrorIs(t, run(finalize, d, bad, false).err, sdkerrors.ErrUnauthorized)
		require.EqualValues(t, 2+i, calls.Load())
	}
}

// TestPubKeyFor: only a single secp256k1 signature goes to the Verifier;
// the key it is checked with is still the account's key in every other way.
func TestPubKeyFor(t *testing.T) {
	v := sigverify.NewVerifier(10)
	secp := testKey(1).PubKey()
	single := &signing.SingleSignatureData{SignMode: direct}
	multi := multisig.NewMultisig(2)
	ms := kmultisig.NewLegacyAminoPubKey(1, []cryptotypes.PubKey{secp, testKey(2).PubKey()})
	ed := ed25519.GenPrivKeyFromSecret([]byte("ed")).PubKey()

	routed := v.PubKeyFor(secp, single)
	_, unrouted := routed.(*secp256k1.PubKey)
	require.False(t, unrouted)
	require.Equal(t, secp.Bytes(), routed.Bytes())
	require.Equal(t, secp.Address(), routed.Address())
	require.Equal(t, secp.Type(), routed.Type())
	require.True(t, routed.Equals(secp))

	require.Same(t, secp, v.PubKeyFor(secp, multi).(*secp256k1.PubKey))
	require.Same(t, ms, v.PubKeyFor(ms, multi).(*kmultisig.LegacyAminoPubKey))
	require.Same(t, ms, v.PubKeyFor(ms, single).(*kmultisig.LegacyAminoPubKey))
	require.Equal(t, ed, v.PubKeyFor(ed, single))
}
