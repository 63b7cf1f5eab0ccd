package ante_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/encoding/protowire"

	sdkmath "cosmossdk.io/math"

	codectypes "github.com/cosmos/cosmos-sdk/codec/types"
	sdk "github.com/cosmos/cosmos-sdk/types"
	sdkerrors "github.com/cosmos/cosmos-sdk/types/errors"
	txtypes "github.com/cosmos/cosmos-sdk/types/tx"
	"github.com/cosmos/cosmos-sdk/x/authz"
	banktypes "github.com/cosmos/cosmos-sdk/x/bank/types"
	govv1 "github.com/cosmos/cosmos-sdk/x/gov/types/v1"
	stakingtypes "github.com/cosmos/cosmos-sdk/x/staking/types"

	"github.com/idlegpu/idlegpu/app/ante"
	"github.com/idlegpu/idlegpu/app/apptesting"
	"github.com/idlegpu/idlegpu/x/base/chaincfg"
)

// TestNumberCheckerFindsEveryAmount: the checker reads amounts wherever a
// tx carries them — any message type, inside Anys nested in messages, and the
// fee — and names the field it refuses.
func TestNumberCheckerFindsEveryAmount(t *testing.T) {
	a := apptesting.NewApp(t)
	r := resolver(a)
	checker := ante.NewNumberChecker(r)
	accs := apptesting.NewAccounts(2, nil)
	from, to := accs[0].Address.String(), accs[1].Address.String()
	send := banktypes.NewMsgSend(accs[0].Address, accs[1].Address, sdk.NewCoins(sdk.NewInt64Coin(chaincfg.BondDenom, 5)))
	fee, err := (&txtypes.AuthInfo{Fee: &txtypes.Fee{Amount: sdk.NewCoins(sdk.NewInt64Coin(chaincfg.BondDenom, 1000)), GasLimit: 1}}).Marshal()
	require.NoError(t, err)
	badFee := encodeWith(t, r, &txtypes.AuthInfo{Fee: &txtypes.Fee{Amount: sdk.NewCoins(sdk.NewInt64Coin(chaincfg.BondDenom, 1000))}},
		"fee.amount[0].amount", "00001000")
	exec := func(inner *codectypes.Any) *codectypes.Any {
		bz, err := (&authz.MsgExec{Grantee: to, Msgs: []*codectypes.Any{inner}}).Marshal()
		require.NoError(t, err)
		return &codectypes.Any{TypeUrl: "/cosmos.authz.v1beta1.MsgExec", Value: bz}
	}
	proposal := &govv1.MsgSubmitProposal{
		Proposer: from, Title: "t", Summary: "s",
		InitialDeposit: sdk.NewCoins(sdk.NewInt64Coin(chaincfg.BondDenom, 1000)),
	}
	proposalOf := func(inner *codectypes.Any) *govv1.MsgSubmitProposal {
		p := *proposal
		p.Messages = []*codectypes.Any{inner}
		return &p
	}
	half := sdkmath.LegacyNewDecWithPrec(5, 1)
	edit := stakingtypes.NewMsgEditValidator("idlevaloper1x", stakingtypes.Description{}, &half, nil)
	vote := govv1.NewMsgVoteWeighted(accs[0].Address, 1, govv1.WeightedVoteOptions{{Option: govv1.OptionYes, Weight: "0.5"}, {Option: govv1.OptionNo, Weight: "0.5"}}, "")

	testCases := []struct {
		name   string
		tx     []byte
		expErr string // empty: accepted
	}{
		{name: "bank send", tx: rawTx(t, fee, packWith(t, r, send, "amount[0].amount", "16"))},
		{name: "bank send in hex", tx: rawTx(t, fee, packWith(t, r, send, "amount[0].amount", "0x10")),
			expErr: `body.messages[0].amount[0].amount: "0x10" is not a canonical decimal integer`},
		{name: "second message", tx: rawTx(t, fee, packWith(t, r, send, "amount[0].amount", "5"), packWith(t, r, send, "amount[0].amount", "05")),
			expErr: `body.messages[1].amount[0].amount: "05" is not a canonical decimal integer`},
		{name: "fee in octal", tx: rawTx(t, badFee, packWith(t, r, send, "amount[0].amount", "5")),
			expErr: `auth_info.fee.amount[0].amount: "00001000" is not a canonical decimal integer`},
		{name: "authz exec of a send", tx: rawTx(t, fee, exec(packWith(t, r, send, "amount[0].amount", "007"))),
			expErr: `body.messages[0].msgs[0].amount[0].amount: "007" is not a canonical decimal integer`},
		{name: "authz exec nested twice", tx: rawTx(t, fee, exec(exec(packWith(t, r, send, "amount[0].amount", "+5")))),
			expErr: `body.messages[0].msgs[0].msgs[0].amount[0].amount: "+5" is not a canonical decimal integer`},
		{name: "authz exec of a canonical send", tx: rawTx(t, fee, exec(exec(packWith(t, r, send, "amount[0].amount", "5"))))},
		{name: "gov proposal's message", tx: rawTx(t, fee, packWith(t, r, proposalOf(packWith(t, r, send, "amount[0].amount", "1_000")), "title", "t")),
			expErr: `body.messages[0].messages[0].amount[0].amount: "1_000" is not a canonical decimal integer`},
		{name: "gov proposal's deposit", tx: rawTx(t, fee, packWith(t, r, proposalOf(packWith(t, r, send, "amount[0].amount", "5")), "initial_deposit[0].amount", "0b1")),
			expErr: `body.messages[0].initial_deposit[0].amount: "0b1" is not a canonical decimal integer`},
		{name: "LegacyDec custom type", tx: rawTx(t, fee, packWith(t, r, edit, "commission_rate", "500000000000000000"))},
		{name: "LegacyDec custom type with a sign", tx: rawTx(t, fee, packWith(t, r, edit, "commission_rate", "+500000000000000000")),
			expErr: `body.messages[0].commission_rate: "+500000000000000000" is not a canonical decimal integer`},
		{name: "plain cosmos.Dec", tx: rawTx(t, fee, packWith(t, r, vote, "options[1].weight", "0.50"))},
		{name: "plain cosmos.Dec with leading zeros", tx: rawTx(t, fee, packWith(t, r, vote, "options[1].weight", "00.5")),
			expErr: `body.messages[0].options[1].weight: "00.5" is not a canonical decimal number`},
		{name: "a string that is no number", tx: rawTx(t, fee, packWith(t, r, send, "to_address", "0x10"))},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			err := checker.CheckTxBytes(tc.tx)
			if tc.expErr == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, ante.ErrNonCanonicalNumber)
			require.EqualError(t, err, tc.expErr+": non-canonical number")
		})
	}
}

// TestNumberCheckerReadsEveryCopy: protobuf lets a field appear twice and
// the last copy wins, so a canonical first copy must not hide the second.
func TestNumberCheckerReadsEveryCopy(t *testing.T) {
	a := apptesting.NewApp(t)
	checker := ante.NewNumberChecker(resolver(a))
	accs := apptesting.NewAccounts(2, nil)

	coin, err := (&sdk.Coin{Denom: chaincfg.BondDenom, Amount: sdkmath.NewInt(5)}).Marshal()
	require.NoError(t, err)
	coin = protowire.AppendTag(coin, 2, protowire.BytesType)
	coin = protowire.AppendString(coin, "0x10")
	var send []byte
	send = protowire.AppendTag(send, 1, protowire.BytesType)
	send = protowire.AppendString(send, accs[0].Address.String())
	send = protowire.AppendTag(send, 2, protowire.BytesType)
	send = protowire.AppendString(send, accs[1].Address.String())
	send = protowire.AppendTag(send, 3, protowire.BytesType)
	send = protowire.AppendBytes(send, coin)

	// The SDK's codec reads the second copy: 16, not the 5 printed first.
	var msg banktypes.MsgSend
	require.NoError(t, msg.Unmarshal(send))
	require.Equal(t, "16ugpu", msg.Amount.String())

	err = checker.CheckTxBytes(rawTx(t, nil, &codectypes.Any{TypeUrl: "/cosmos.bank.v1beta1.MsgSend", Value: send}))
	require.ErrorIs(t, err, ante.ErrNonCanonicalNumber)
	require.ErrorContains(t, err, `body.messages[0].amount[0].amount: "0x10" is not a canonical decimal integer`)
}

// TestNumberCheckerRefusesWhatDoesNotDecode: bytes it cannot read are a
// decode error, never a pass.
func TestNumberCheckerRefusesWhatDoesNotDecode(t *testing.T) {
	a := apptesting.NewApp(t)
	checker := ante.NewNumberChecker(resolver(a))

	require.ErrorIs(t, checker.CheckTxBytes(nil), sdkerrors.ErrTxDecode)
	require.ErrorIs(t, checker.CheckTxBytes([]byte{0x0a, 0x05, 0x01}), sdkerrors.ErrTxDecode)

	unknown := rawTx(t, nil, &codectypes.Any{TypeUrl: "/idlegpu.nope.v1.MsgNope", Value: []byte{0x0a, 0x01, 'x'}})
	err := checker.CheckTxBytes(unknown)
	require.ErrorIs(t, err, sdkerrors.ErrTxDecode)
	require.ErrorContains(t, err, `body.messages[0]: Any of type "/idlegpu.nope.v1.MsgNope"`)
}

// FuzzNumberChecker: arbitrary bytes never make the checker panic.
func FuzzNumberChecker(f *testing.F) {
	a := apptesting.NewApp(f)
	r := resolver(a)
	checker := ante.NewNumberChecker(r)
	accs := apptesting.NewAccounts(2, nil)
	send := banktypes.NewMsgSend(accs[0].Address, accs[1].Address, sdk.NewCoins(sdk.NewInt64Coin(chaincfg.BondDenom, 5)))
	f.Add(rawTx(f, nil, packWith(f, r, send, "amount[0].amount", "5")))
	f.Add(rawTx(f, nil, packWith(f, r, send, "amount[0].amount", "0x5")))
	f.Fuzz(func(t *testing.T, bz []byte) {
		_ = checker.CheckTxBytes(bz)
	})
}
