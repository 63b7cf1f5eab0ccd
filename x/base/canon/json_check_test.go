package canon_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/reflect/protoregistry"

	_ "cosmossdk.io/api/cosmos/authz/v1beta1" // MsgExec, resolved from "@type"
	_ "cosmossdk.io/api/cosmos/bank/v1beta1"
	_ "cosmossdk.io/api/cosmos/gov/v1"
	_ "cosmossdk.io/api/cosmos/staking/v1beta1"
	txv1beta1 "cosmossdk.io/api/cosmos/tx/v1beta1"
	_ "google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/idlegpu/idlegpu/x/base/canon"
)

var txDesc = (&txv1beta1.Tx{}).ProtoReflect().Descriptor()

// sendTx is a JSON tx of one bank send of amount, with fee and gas as
// given: raw JSON values.
func sendTx(amount, fee, gas string) string {
	return `{"body":{"messages":[{"@type":"/cosmos.bank.v1beta1.MsgSend","from_address":"a","to_address":"b",` +
		`"amount":[{"denom":"ugpu","amount":` + amount + `}]}]},` +
		`"auth_info":{"fee":{"amount":[{"denom":"ugpu","amount":` + fee + `}],"gas_limit":` + gas + `}},"signatures":[]}`
}

// msgTx is a JSON tx of one message, msg's JSON members after its "@type".
func msgTx(typeURL, members string) string {
	return `{"body":{"messages":[{"@type":"` + typeURL + `",` + members + `}]}}`
}

// TestJSONChecker: every number the SDK's JSON codec reads from a JSON tx —
// in any message, in Anys nested in messages, in the fee — is held to
// plain decimal, and the refusal names the field as the JSON spells it.
func TestJSONChecker(t *testing.T) {
	c := canon.NewJSONChecker(protoregistry.GlobalFiles)
	const amountPath = "body.messages[0].amount[0].amount"
	testCases := []struct {
		name string
		json string
		// expField and expText name the refused number; empty: accepted.
		expField, expText, expWant string
	}{
		{name: "canonical", json: sendTx(`"16"`, `"1000"`, `"200000"`)},
		{name: "gas as a JSON number", json: sendTx(`"16"`, `"1000"`, `200000`)},
		{name: "gas as the largest exact JSON number", json: sendTx(`"16"`, `"1000"`, `9007199254740991`)},
		{name: "gas past 2^53 as a string", json: sendTx(`"16"`, `"1000"`, `"9007199254740993"`)},
		{name: "amount unset", json: sendTx(`null`, `"1000"`, `"1"`)},
		{name: "octal-looking amount", json: sendTx(`"00001234567"`, `"1000"`, `"1"`), expField: amountPath, expText: "00001234567"},
		{name: "hex amount", json: sendTx(`"0x10"`, `"1000"`, `"1"`), expField: amountPath, expText: "0x10"},
		{name: "underscores", json: sendTx(`"1_000"`, `"1000"`, `"1"`), expField: amountPath, expText: "1_000"},
		{name: "plus sign", json: sendTx(`"+5"`, `"1000"`, `"1"`), expField: amountPath, expText: "+5"},
		{name: "leading space", json: sendTx(`" 5"`, `"1000"`, `"1"`), expField: amountPath, expText: " 5"},
		{name: "trailing space", json: sendTx(`"5 "`, `"1000"`, `"1"`), expField: amountPath, expText: "5 "},
		{name: "minus zero", json: sendTx(`"-0"`, `"1000"`, `"1"`), expField: amountPath, expText: "-0"},
		{name: "exponent", json: sendTx(`"1e3"`, `"1000"`, `"1"`), expField: amountPath, expText: "1e3"},
		{name: "empty", json: sendTx(`""`, `"1000"`, `"1"`), expField: amountPath, expText: ""},
		{name: "escaped digits", json: sendTx(`"\u0030x10"`, `"1000"`, `"1"`), expField: amountPath, expText: "0x10"},
		{name: "fee in octal", json: sendTx(`"5"`, `"01000"`, `"1"`), expField: "auth_info.fee.amount[0].amount", expText: "01000"},
		{name: "gas with a leading zero", json: sendTx(`"5"`, `"1"`, `"0200000"`), expField: "auth_info.fee.gas_limit", expText: "0200000"},
		{name: "gas with a space", json: sendTx(`"5"`, `"1"`, `" 200000"`), expField: "auth_info.fee.gas_limit", expText: " 200000"},
		{name: "gas as an exponent", json: sendTx(`"5"`, `"1"`, `2e5`), expField: "auth_info.fee.gas_limit", expText: "2e5"},
		{name: "gas past 2^53 as a JSON number", json: sendTx(`"5"`, `"1"`, `9007199254740993`),
			expField: "auth_info.fee.gas_limit", expText: "9007199254740993", expWant: canon.WantExactJSON},
		{name: "camelCase names", json: `{"authInfo":{"fee":{"gasLimit":"0x1"}}}`, expField: "authInfo.fee.gasLimit", expText: "0x1"},
		{name: "a repeated key's every copy", json: `{"body":{"messages":[{"@type":"/cosmos.bank.v1beta1.MsgSend",` +
			`"amount":[{"denom":"ugpu","amount":"5","amount":"0x10"}]}]}}`, expField: amountPath, expText: "0x10"},
		{name: "@type after the fields", json: `{"body":{"messages":[{"amount":[{"amount":"0x10"}],"@type":"/cosmos.bank.v1beta1.MsgSend"}]}}`,
			expField: amountPath, expText: "0x10"},
		{name: "authz exec of a send", json: msgTx("/cosmos.authz.v1beta1.MsgExec",
			`"grantee":"g","msgs":[{"@type":"/cosmos.bank.v1beta1.MsgSend","amount":[{"denom":"ugpu","amount":"007"}]}]`),
			expField: "body.messages[0].msgs[0].amount[0].amount", expText: "007"},
		{name: "LegacyDec as its JSON decimal", json: msgTx("/cosmos.staking.v1beta1.MsgEditValidator", `"commission_rate":"0.500000000000000000"`)},
		{name: "LegacyDec with a sign", json: msgTx("/cosmos.staking.v1beta1.MsgEditValidator", `"commission_rate":"+0.5"`),
			expField: "body.messages[0].commission_rate", expText: "+0.5", expWant: canon.WantDecimal},
		{name: "cosmos.Dec string", json: msgTx("/cosmos.gov.v1.MsgVoteWeighted", `"options":[{"option":1,"weight":"0.5"},{"option":"VOTE_OPTION_NO","weight":"00.5"}]`),
			expField: "body.messages[0].options[1].weight", expText: "00.5", expWant: canon.WantDecimal},
		{name: "uint64 in a message", json: msgTx("/cosmos.gov.v1.MsgVote", `"proposal_id":"0x1"`),
			expField: "body.messages[0].proposal_id", expText: "0x1"},
		{name: "a wrapper in an Any", json: `{"body":{"extension_options":[{"@type":"/google.protobuf.UInt64Value","value":"07"}]}}`,
			expField: "body.extension_options[0].value", expText: "07"},
		{name: "a string that is no number", json: msgTx("/cosmos.bank.v1beta1.MsgSend", `"to_address":"0x10"`)},
		{name: "an unknown field", json: `{"body":{"nope":"0x10"}}`},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			err := c.Check([]byte(tc.json), txDesc, "")
			if tc.expField == "" {
				require.NoError(t, err)
				return
			}
			want := tc.expWant
			if want == "" {
				want = canon.WantInt
			}
			var ne *canon.NumberError
			require.ErrorAs(t, err, &ne)
			require.Equal(t, canon.NumberError{Field: tc.expField, Text: tc.expText, Want: want}, *ne)
		})
	}
}

// TestJSONCheckerRoot: paths start at root.
func TestJSONCheckerRoot(t *testing.T) {
	c := canon.NewJSONChecker(protoregistry.GlobalFiles)
	err := c.Check([]byte(`{"fee":{"gas_limit":"010"}}`), (&txv1beta1.AuthInfo{}).ProtoReflect().Descriptor(), "tx.auth_info")
	require.EqualError(t, err, `tx.auth_info.fee.gas_limit: "010" is not a canonical decimal integer`)
}

// TestJSONCheckerRefusesWhatDoesNotRead: text that is not JSON, or an Any
// of a type nobody knows, is an error (not a NumberError), never a pass.
func TestJSONCheckerRefusesWhatDoesNotRead(t *testing.T) {
	c := canon.NewJSONChecker(protoregistry.GlobalFiles)
	for in, want := range map[string]string{
		``:                      "not JSON: unexpected EOF",
		`{"body":`:              "not JSON: unexpected EOF",
		`{"body":{"memo":"x" }`: "not JSON: unexpected EOF",
		`{"body" 1}`:            "not JSON: invalid character '1' after object key",
		`{"body":{"messages":[{"@type":"/idlegpu.nope.v1.MsgNope"}]}}`: `body.messages[0]: Any of type "/idlegpu.nope.v1.MsgNope": ` +
			protoregistry.NotFound.Error(),
		strings.Repeat("[", 20_000): "not JSON: JSON nested deeper than 10000",
	} {
		err := c.Check([]byte(in), txDesc, "")
		require.EqualError(t, err, want, in[:min(len(in), 40)])
		var ne *canon.NumberError
		require.NotErrorAs(t, err, &ne)
	}
}

// FuzzJSONChecker: any bytes, checked twice, give the same answer and
// never a panic.
func FuzzJSONChecker(f *testing.F) {
	c := canon.NewJSONChecker(protoregistry.GlobalFiles)
	f.Add([]byte(sendTx(`"16"`, `"1000"`, `"200000"`)))
	f.Add([]byte(sendTx(`"0x10"`, `"01000"`, `9007199254740993`)))
	f.Add([]byte(msgTx("/cosmos.authz.v1beta1.MsgExec", `"msgs":[{"@type":"/cosmos.bank.v1beta1.MsgSend","amount":[{"amount":"7"}]}]`)))
	f.Add([]byte(`{"body":{"extension_options":[{"@type":"/google.protobuf.UInt64Value","value":"07"}]}}`))
	f.Fuzz(func(t *testing.T, bz []byte) {
		first := c.Check(bz, txDesc, "")
		second := c.Check(bz, txDesc, "")
		if first == nil {
			require.NoError(t, second)
			return
		}
		require.EqualError(t, second, first.Error())
	})
}
