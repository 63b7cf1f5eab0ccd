package ante_test

import (
	"encoding/json"
	"math/big"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/cosmos/cosmos-sdk/client"
	sdk "github.com/cosmos/cosmos-sdk/types"
	sdkerrors "github.com/cosmos/cosmos-sdk/types/errors"
	banktypes "github.com/cosmos/cosmos-sdk/x/bank/types"

	"github.com/idlegpu/idlegpu/app/ante"
	"github.com/idlegpu/idlegpu/app/apptesting"
	"github.com/idlegpu/idlegpu/x/base/chaincfg"
)

// sendJSON is a bank send of 16ugpu paying 1000ugpu for 200000 gas, in the
// JSON the SDK writes for it (what `tx sign` and `tx encode` read).
func sendJSON(t testing.TB, cfg client.TxConfig) string {
	t.Helper()
	accs := apptesting.NewAccounts(2, nil)
	b := cfg.NewTxBuilder()
	require.NoError(t, b.SetMsgs(banktypes.NewMsgSend(accs[0].Address, accs[1].Address, sdk.NewCoins(sdk.NewInt64Coin(chaincfg.BondDenom, 16)))))
	b.SetFeeAmount(sdk.NewCoins(sdk.NewInt64Coin(chaincfg.BondDenom, 1000)))
	b.SetGasLimit(200_000)
	bz, err := cfg.TxJSONEncoder()(b.GetTx())
	require.NoError(t, err)
	for _, s := range []string{`"amount":"16"`, `"amount":"1000"`, `"gas_limit":"200000"`} {
		require.Equal(t, 1, strings.Count(string(bz), s), "%s in %s", s, bz)
	}
	return string(bz)
}

// TestCheckTxJSON: the SDK's JSON decoder reads amounts with Go's base-0
// rules, so a JSON tx would be signed for another number than the one a
// person reads in it; the checked decoder refuses each such spelling,
// naming the field, and decodes the canonical tx to the same bytes as
// before.
func TestCheckTxJSON(t *testing.T) {
	a := apptesting.NewApp(t)
	cfg := a.TxConfig()
	decode := ante.NewNumberChecker(resolver(a)).JSONTxDecoder(cfg.TxJSONDecoder())
	good := sendJSON(t, cfg)
	const amount, fee, gas = `"amount":"16"`, `"amount":"1000"`, `"gas_limit":"200000"`
	const amountErr = `body.messages[0].amount[0].amount: %q is not a canonical decimal integer: non-canonical number`

	testCases := []struct {
		name     string
		old, new string
		expErr   string
		// plain is what the SDK's decoder alone reads: the send's amount,
		// the fee or the gas; empty where it fails to decode.
		plain string
	}{
		{name: "octal-looking", old: amount, new: `"amount":"00001234567"`, plain: "342391ugpu"},
		{name: "hex", old: amount, new: `"amount":"0x10"`, plain: "16ugpu"},
		{name: "underscores", old: amount, new: `"amount":"1_000"`, plain: "1000ugpu"},
		{name: "plus sign", old: amount, new: `"amount":"+5"`, plain: "5ugpu"},
		{name: "leading space", old: amount, new: `"amount":" 5"`},
		{name: "trailing space", old: amount, new: `"amount":"5 "`},
		{name: "minus zero", old: amount, new: `"amount":"-0"`, plain: "0ugpu"},
		{name: "exponent", old: amount, new: `"amount":"1e3"`},
		{name: "empty", old: amount, new: `"amount":""`},
		{name: "fee in octal", old: fee, new: `"amount":"01000"`, plain: "512ugpu",
			expErr: `auth_info.fee.amount[0].amount: "01000" is not a canonical decimal integer: non-canonical number`},
		{name: "gas with a space", old: gas, new: `"gas_limit":" 200000"`, plain: "200000",
			expErr: `auth_info.fee.gas_limit: " 200000" is not a canonical decimal integer: non-canonical number`},
		{name: "gas past 2^53 as a JSON number", old: gas, new: `"gas_limit":9007199254740993`, plain: "9007199254740993",
			expErr: `auth_info.fee.gas_limit: "9007199254740993" is not a JSON number JavaScript reads exactly: write it as a string: non-canonical number`},
		{name: "gas with a leading zero", old: gas, new: `"gas_limit":"0200000"`,
			expErr: `auth_info.fee.gas_limit: "0200000" is not a canonical decimal integer: non-canonical number`},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			bz := []byte(strings.Replace(good, tc.old, tc.new, 1))
			plain, err := cfg.TxJSONDecoder()(bz)
			if tc.plain == "" {
				require.Error(t, err, "the SDK's decoder refuses it too")
			} else {
				require.NoError(t, err)
				require.Equal(t, tc.plain, plainReading(plain, tc.old))
			}

			want := tc.expErr
			if want == "" {
				var text string
				require.NoError(t, json.Unmarshal([]byte(strings.TrimPrefix(tc.new, `"amount":`)), &text))
				want = strings.Replace(amountErr, "%q", strconv.Quote(text), 1)
			}
			got, err := decode(bz)
			require.Nil(t, got)
			require.ErrorIs(t, err, ante.ErrNonCanonicalNumber)
			require.EqualError(t, err, want)
		})
	}

	t.Run("canonical: the same tx, the same bytes", func(t *testing.T) {
		for _, in := range []string{good, strings.Replace(good, gas, `"gas_limit":200000`, 1)} {
			checked, err := decode([]byte(in))
			require.NoError(t, err)
			plain, err := cfg.TxJSONDecoder()([]byte(in))
			require.NoError(t, err)
			want, err := cfg.TxEncoder()(plain)
			require.NoError(t, err)
			got, err := cfg.TxEncoder()(checked)
			require.NoError(t, err)
			require.Equal(t, want, got)
		}
	})
}

// plainReading is the number the SDK's decoder read where the test case
// changed old.
func plainReading(tx sdk.Tx, old string) string {
	ftx := tx.(sdk.FeeTx)
	switch {
	case strings.HasPrefix(old, `"gas_limit"`):
		return strconv.FormatUint(ftx.GetGas(), 10)
	case old == `"amount":"1000"`:
		return ftx.GetFee().String()
	default:
		return tx.GetMsgs()[0].(*banktypes.MsgSend).Amount.String()
	}
}

// TestCheckTxJSONRefusesWhatDoesNotDecode: text that is not JSON, or an Any
// of a type the app does not know, is a decode error, never a pass.
func TestCheckTxJSONRefusesWhatDoesNotDecode(t *testing.T) {
	a := apptesting.NewApp(t)
	checker := ante.NewNumberChecker(resolver(a))
	for in, want := range map[string]string{
		`{"body":`: "not JSON: unexpected EOF: tx parse error",
		`{"body":{"messages":[{"@type":"/idlegpu.nope.v1.MsgNope","n":"0x1"}]}}`: `body.messages[0]: Any of type "/idlegpu.nope.v1.MsgNope"`,
	} {
		err := checker.CheckTxJSON([]byte(in))
		require.ErrorIs(t, err, sdkerrors.ErrTxDecode, in)
		require.ErrorContains(t, err, want, in)
	}
}

// FuzzCheckTxJSON: whatever the checked decoder takes, the SDK's decoder
// and a plain decimal reader read as the same amount, fee and gas, and a
// gas given as a JSON number is one JavaScript reads exactly; the fuzzer
// writes those three JSON values, which may be anything. It never panics.
func FuzzCheckTxJSON(f *testing.F) {
	a := apptesting.NewApp(f)
	cfg := a.TxConfig()
	decode := ante.NewNumberChecker(resolver(a)).JSONTxDecoder(cfg.TxJSONDecoder())
	good := sendJSON(f, cfg)
	f.Add(`"16"`, `"1000"`, `"200000"`)
	f.Add(`"0x10"`, `"01000"`, `200000`)
	f.Add(`"00001234567"`, `"1_000"`, `9007199254740993`)
	f.Add(`"+5"`, `" 5"`, `"0200000"`)
	f.Add(`"-0"`, `"1e3"`, `""`)
	f.Add(`"\u0031"`, `null`, `2e5`)
	f.Fuzz(func(t *testing.T, amount, fee, gas string) {
		in := strings.Replace(good, `"amount":"16"`, `"amount":`+amount, 1)
		in = strings.Replace(in, `"amount":"1000"`, `"amount":`+fee, 1)
		in = strings.Replace(in, `"gas_limit":"200000"`, `"gas_limit":`+gas, 1)
		tx, err := decode([]byte(in))
		// Only a value that is one JSON value stays in its field; others
		// may write more members, so only a panic would be wrong.
		if err != nil || !json.Valid([]byte(amount)) || !json.Valid([]byte(fee)) || !json.Valid([]byte(gas)) {
			return
		}
		ftx := tx.(sdk.FeeTx)
		sendAmount := tx.GetMsgs()[0].(*banktypes.MsgSend).Amount
		requireDecimal(t, amount, sendAmount.AmountOf(chaincfg.BondDenom).BigInt())
		requireDecimal(t, fee, ftx.GetFee().AmountOf(chaincfg.BondDenom).BigInt())
		if requireDecimal(t, gas, new(big.Int).SetUint64(ftx.GetGas())) {
			require.LessOrEqual(t, ftx.GetGas(), uint64(1<<53-1), "gas %s is a JSON number JavaScript rounds", gas)
		}
	})
}

// requireDecimal: raw, one JSON value, read as plain decimal, is got (null
// is unset, zero); it reports whether raw is a JSON number.
func requireDecimal(t *testing.T, raw string, got *big.Int) (isNumber bool) {
	t.Helper()
	var v any
	d := json.NewDecoder(strings.NewReader(raw))
	d.UseNumber()
	require.NoError(t, d.Decode(&v), "%s", raw)
	var text string
	switch x := v.(type) {
	case nil:
		require.Zero(t, got.Sign(), "null read as %s", got)
		return false
	case string:
		text = x
	case json.Number:
		text, isNumber = string(x), true
	default:
		t.Fatalf("%s is %T, not a number", raw, v)
	}
	want, ok := new(big.Int).SetString(text, 10)
	require.True(t, ok, "%q passed but is no decimal", text)
	require.Zero(t, want.Cmp(got), "%q read as %s", text, got)
	return isNumber
}
