package wallet_test

import (
	"encoding/hex"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/require"

	"github.com/cosmos/cosmos-sdk/codec"
	codectypes "github.com/cosmos/cosmos-sdk/codec/types"
	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/auction/client/wallet"
	"github.com/idlegpu/idlegpu/x/auction/types"
)

// TestUnmarshalSignedJSON: every number in a signed bid's, cancel's,
// close's or withdrawal's JSON must be plain decimal, or the relayer would submit another
// number than the one the wallet signed and the person read; the refusal
// is ErrInvalidSignedMsg naming the field. The canonical JSON decodes to the
// message that was signed, with the committed digest.
func TestUnmarshalSignedJSON(t *testing.T) {
	cdc := codec.NewProtoCodec(codectypes.NewInterfaceRegistry())
	key, err := crypto.HexToECDSA(vectorKey)
	require.NoError(t, err)
	renter := crypto.PubkeyToAddress(key.PublicKey)
	bid := vectorBid(renter)
	bidJSON, err := cdc.MarshalJSON(&bid)
	require.NoError(t, err)
	cancel := types.CancelJobAuth{Renter: bid.Renter, JobId: 12, CosmosChainId: "idlegpu-local", Nonce: 3, Deadline: 1_800_000_000,
		MaxRelayerFee: sdk.NewInt64Coin("uusdc", 20_000), EvmChainId: 1337, VerifyingContract: bid.VerifyingContract}
	cancelJSON, err := cdc.MarshalJSON(&cancel)
	require.NoError(t, err)
	closeAuth := types.CloseLeaseAuth{Renter: bid.Renter, LeaseId: 4, Reason: "done", CosmosChainId: "idlegpu-local", Nonce: 4,
		Deadline: 1_800_000_000, MaxRelayerFee: sdk.NewInt64Coin("uusdc", 20_000), EvmChainId: 1337, VerifyingContract: bid.VerifyingContract}
	closeJSON, err := cdc.MarshalJSON(&closeAuth)
	require.NoError(t, err)
	withdraw := vectorWithdraw(renter)
	withdrawJSON, err := cdc.MarshalJSON(&withdraw)
	require.NoError(t, err)

	// The codec alone reads the octal-looking price as 0o1600000.
	var plain types.JobBid
	require.NoError(t, cdc.UnmarshalJSON([]byte(strings.Replace(string(bidJSON), `"amount":"1600000"`, `"amount":"01600000"`, 1)), &plain))
	require.Equal(t, int64(0o1600000), plain.Spec.MaxPrice.Amount.Int64())

	testCases := []struct {
		name     string
		doc      string // "bid", "cancel", "close" or "withdraw"
		old, new string
		expErr   string
	}{
		{"price octal", "bid", `"amount":"1600000"`, `"amount":"001600000"`, `bid.spec.max_price.amount: "001600000"`},
		{"price hex", "bid", `"amount":"1600000"`, `"amount":"0x186a00"`, `bid.spec.max_price.amount: "0x186a00"`},
		{"price with underscores", "bid", `"amount":"1600000"`, `"amount":"1_600_000"`, `bid.spec.max_price.amount: "1_600_000"`},
		{"price with a sign", "bid", `"amount":"1600000"`, `"amount":"+1600000"`, `bid.spec.max_price.amount: "+1600000"`},
		{"price with a space", "bid", `"amount":"1600000"`, `"amount":" 1600000"`, `bid.spec.max_price.amount: " 1600000"`},
		{"price as an exponent", "bid", `"amount":"1600000"`, `"amount":"1.6e6"`, `bid.spec.max_price.amount: "1.6e6"`},
		{"price empty", "bid", `"amount":"1600000"`, `"amount":""`, `bid.spec.max_price.amount: ""`},
		{"fee", "bid", `"max_relayer_fee":"50000"`, `"max_relayer_fee":"050000"`, `bid.max_relayer_fee: "050000"`},
		{"nonce", "bid", `"nonce":"7"`, `"nonce":"07"`, `bid.nonce: "07"`},
		{"deadline", "bid", `"deadline":"1800000000"`, `"deadline":"-0"`, `bid.deadline: "-0"`},
		{"evm chain id", "bid", `"evm_chain_id":"1337"`, `"evm_chain_id":"0x539"`, `bid.evm_chain_id: "0x539"`},
		{"gpu count", "bid", `"gpu_count":2`, `"gpu_count":"02"`, `bid.spec.gpu_count: "02"`},
		{"duration", "bid", `"duration_seconds":"7200"`, `"duration_seconds":"7_200"`, `bid.spec.duration_seconds: "7_200"`},
		{"nonce past 2^53 as a JSON number", "bid", `"nonce":"7"`, `"nonce":9007199254740993`,
			`bid.nonce: "9007199254740993" is not a JSON number JavaScript reads exactly: write it as a string`},
		{"job id", "cancel", `"job_id":"12"`, `"job_id":"0xc"`, `cancel.job_id: "0xc"`},
		{"cancel fee", "cancel", `"amount":"20000"`, `"amount":"020000"`, `cancel.max_relayer_fee.amount: "020000"`},
		{"lease id", "close", `"lease_id":"4"`, `"lease_id":"+4"`, `close.lease_id: "+4"`},
		{"close nonce", "close", `"nonce":"4"`, `"nonce":"4 "`, `close.nonce: "4 "`},
		{"withdraw amount octal", "withdraw", `"amount":"123456789012345678901234567890"`, `"amount":"0123456789012345678901234567890"`,
			`withdraw.amount.amount: "0123456789012345678901234567890"`},
		{"withdraw amount hex", "withdraw", `"amount":"123456789012345678901234567890"`, `"amount":"0x10"`, `withdraw.amount.amount: "0x10"`},
		{"withdraw fee", "withdraw", `"amount":"20000"`, `"amount":"2e4"`, `withdraw.max_relayer_fee.amount: "2e4"`},
		{"withdraw nonce", "withdraw", `"nonce":"11"`, `"nonce":"011"`, `withdraw.nonce: "011"`},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			doc := map[string][]byte{"bid": bidJSON, "cancel": cancelJSON, "close": closeJSON, "withdraw": withdrawJSON}[tc.doc]
			msg := map[string]codec.ProtoMarshaler{"bid": &types.JobBid{}, "cancel": &types.CancelJobAuth{}, "close": &types.CloseLeaseAuth{},
				"withdraw": &types.WithdrawAuth{}}[tc.doc]
			bad := strings.Replace(string(doc), tc.old, tc.new, 1)
			require.NotEqual(t, string(doc), bad)
			err := wallet.UnmarshalSignedJSON(cdc, tc.doc, []byte(bad), msg)
			require.ErrorIs(t, err, types.ErrInvalidSignedMsg)
			want := tc.expErr
			if !strings.Contains(want, " is not ") {
				want += " is not a canonical decimal integer"
			}
			require.EqualError(t, err, want+": invalid signed message")
		})
	}

	t.Run("canonical", func(t *testing.T) {
		var got types.JobBid
		require.NoError(t, wallet.UnmarshalSignedJSON(cdc, "bid", bidJSON, &got))
		require.Equal(t, bid, got)
		structHash, err := types.JobBidHash(got, renter.Bytes())
		require.NoError(t, err)
		c, err := types.ParseEVMAddress(got.VerifyingContract)
		require.NoError(t, err)
		digest := types.TypedDataDigest(types.EIP712Domain{ChainID: got.EvmChainId, VerifyingContract: c}, structHash)
		require.Equal(t, vectorDigest, hex.EncodeToString(digest), "the bytes signed are the committed vector's")

		var gotCancel types.CancelJobAuth
		require.NoError(t, wallet.UnmarshalSignedJSON(cdc, "cancel", cancelJSON, &gotCancel))
		require.Equal(t, cancel, gotCancel)
		var gotClose types.CloseLeaseAuth
		require.NoError(t, wallet.UnmarshalSignedJSON(cdc, "close", closeJSON, &gotClose))
		require.Equal(t, closeAuth, gotClose)
		var gotWithdraw types.WithdrawAuth
		require.NoError(t, wallet.UnmarshalSignedJSON(cdc, "withdraw", withdrawJSON, &gotWithdraw))
		require.Equal(t, withdraw, gotWithdraw)
	})

	t.Run("not JSON", func(t *testing.T) {
		err := wallet.UnmarshalSignedJSON(cdc, "bid", []byte(`{"nonce":`), &types.JobBid{})
		require.ErrorIs(t, err, types.ErrInvalidSignedMsg)
		require.EqualError(t, err, "not JSON: unexpected EOF: invalid signed message")
	})
}
