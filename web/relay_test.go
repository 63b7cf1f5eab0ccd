package web

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"
	"github.com/stretchr/testify/require"

	sdkmath "cosmossdk.io/math"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/app/apptesting"
	"github.com/idlegpu/idlegpu/chainclient"
	"github.com/idlegpu/idlegpu/x/auction/client/wallet"
	auctiontypes "github.com/idlegpu/idlegpu/x/auction/types"
	"github.com/idlegpu/idlegpu/x/base/chaincfg"
)

const testContract = "0x5FbDB2315678afecb367f032d93F642f64180aa3"

func testBid(renter string) auctiontypes.JobBid {
	spec := apptesting.TrainingJob(2, 1_500_000)
	spec.DurationSeconds = 7200
	return auctiontypes.JobBid{
		Renter: renter, Spec: spec, CosmosChainId: "idlegpu-local",
		Nonce:    (1 << 62) + 12345, // above 2^53: a JSON number would be rounded
		Deadline: 1_900_000_000, MaxRelayerFee: sdkmath.NewInt(50_000),
		EvmChainId: 1337, VerifyingContract: testContract,
	}
}

// The typed data the page hands the wallet must hash, after a JSON round
// trip through a parser that reads numbers as float64 (as a browser does),
// to the digest the chain verifies; and the signer check must accept the
// renter's signature and refuse anyone else's before the relayer pays gas.
func TestWalletTypedDataAndSignerCheck(t *testing.T) {
	key, err := crypto.GenerateKey()
	require.NoError(t, err)
	addr := crypto.PubkeyToAddress(key.PublicKey)
	renter := sdk.MustBech32ifyAddressBytes(chaincfg.Bech32Prefix, addr.Bytes())
	bid := testBid(renter)

	bz, err := json.Marshal(walletTypedData(wallet.JobBidTypedData(bid, addr)))
	require.NoError(t, err)
	require.Contains(t, string(bz), `"chainId":"1337"`, "every integer in decimal, the chain id too")
	var asBrowser apitypes.TypedData
	require.NoError(t, json.Unmarshal(bz, &asBrowser))
	wantHash, err := auctiontypes.JobBidHash(bid, addr.Bytes())
	require.NoError(t, err)
	c, err := auctiontypes.ParseEVMAddress(testContract)
	require.NoError(t, err)
	digest := auctiontypes.TypedDataDigest(auctiontypes.EIP712Domain{ChainID: 1337, VerifyingContract: c}, wantHash)
	got, _, err := apitypes.TypedDataAndHash(asBrowser)
	require.NoError(t, err)
	require.Equal(t, digest, got, "the wallet signs exactly what the chain checks")

	sig, err := wallet.SignJobBid(bid, key)
	require.NoError(t, err)
	hash := func(r []byte) ([]byte, error) { return auctiontypes.JobBidHash(bid, r) }
	require.NoError(t, checkSigner(renter, testContract, 1337, hash, sig))

	other, err := crypto.GenerateKey()
	require.NoError(t, err)
	bad, err := wallet.SignJobBid(bid, other)
	require.NoError(t, err)
	err = checkSigner(renter, testContract, 1337, hash, bad)
	var ae apiError
	require.ErrorAs(t, err, &ae)
	require.Equal(t, http.StatusForbidden, ae.code)

	// A bid signed for another EVM chain recovers another address.
	require.Error(t, checkSigner(renter, testContract, 1, hash, sig))
}

// The relayer asks its own fee, never more than the signer allowed.
func TestRelayerFee(t *testing.T) {
	s := &Server{cfg: Config{RelayerFee: sdkmath.NewInt(50_000)}}
	require.Equal(t, sdkmath.NewInt(50_000), s.fee(sdkmath.NewInt(80_000)))
	require.Equal(t, sdkmath.NewInt(20_000), s.fee(sdkmath.NewInt(20_000)))
	require.Equal(t, sdkmath.ZeroInt(), s.fee(sdkmath.ZeroInt()))
}

// The relay reads the signed message as the chain's JSON with
// wallet.UnmarshalSignedJSON: a price the codec alone reads in octal
// (001500000 is 425984) is a 400 carrying ErrInvalidSignedMsg that names
// the field, and the canonical bid becomes exactly the message signed.
func TestSignedMsgRefusesNonCanonicalNumbers(t *testing.T) {
	key, err := crypto.GenerateKey()
	require.NoError(t, err)
	addr := crypto.PubkeyToAddress(key.PublicKey)
	renter := sdk.MustBech32ifyAddressBytes(chaincfg.Bech32Prefix, addr.Bytes())
	bid := testBid(renter)
	sig, err := wallet.SignJobBid(bid, key)
	require.NoError(t, err)
	enc, err := chainclient.Encoding()
	require.NoError(t, err)
	bz, err := enc.Codec.MarshalJSON(&bid)
	require.NoError(t, err)
	s := &Server{cfg: Config{ChainID: "idlegpu-local", RelayerFee: sdkmath.NewInt(50_000)}}
	const submitter = "idle1submitter"

	msg, fee, err := s.signedMsg(wallet.SignedJob{Bid: bz}, sig, "bid", submitter)
	require.NoError(t, err)
	got := msg.(*auctiontypes.MsgSubmitSignedJob)
	require.Equal(t, submitter, got.Submitter)
	require.Equal(t, sig, got.Signature)
	require.Equal(t, sdkmath.NewInt(50_000), got.RelayerFee)
	require.Equal(t, got.RelayerFee, fee)
	signed, err := auctiontypes.JobBidHash(bid, addr.Bytes())
	require.NoError(t, err)
	relayed, err := auctiontypes.JobBidHash(got.Bid, addr.Bytes())
	require.NoError(t, err)
	require.Equal(t, signed, relayed, "the relayed bid is the one signed")

	octal := strings.Replace(string(bz), `"amount":"1500000"`, `"amount":"001500000"`, 1)
	var plain auctiontypes.JobBid
	require.NoError(t, enc.Codec.UnmarshalJSON([]byte(octal), &plain))
	require.Equal(t, int64(425984), plain.Spec.MaxPrice.Amount.Int64())
	_, _, err = s.signedMsg(wallet.SignedJob{Bid: json.RawMessage(octal)}, sig, "bid", submitter)
	require.ErrorIs(t, err, auctiontypes.ErrInvalidSignedMsg)
	require.ErrorAs(t, err, new(errBadRequest))
	require.EqualError(t, err, `bid.spec.max_price.amount: "001500000" is not a canonical decimal integer: invalid signed message`)

	for _, want := range []string{"bid", "cancel", "close", "withdraw"} {
		_, _, err = s.signedMsg(wallet.SignedJob{}, sig, want, submitter)
		require.EqualError(t, err, "want a signed "+want)
	}
}

// A signed withdrawal relays as MsgSubmitSignedWithdraw for exactly what was
// signed; one whose amount a relayer raised (its signature no longer the
// account's) is refused before any gas is paid, as is a non-canonical amount.
func TestSignedWithdrawRelay(t *testing.T) {
	key, err := crypto.GenerateKey()
	require.NoError(t, err)
	addr := crypto.PubkeyToAddress(key.PublicKey)
	account := sdk.MustBech32ifyAddressBytes(chaincfg.Bech32Prefix, addr.Bytes())
	a := auctiontypes.WithdrawAuth{
		Renter: account, Amount: sdk.NewInt64Coin("uusdc", 2_500_000), CosmosChainId: "idlegpu-local",
		Nonce: (1 << 62) + 7, Deadline: 1_900_000_000, MaxRelayerFee: sdk.NewInt64Coin("uusdc", 20_000),
		EvmChainId: 1337, VerifyingContract: testContract,
	}
	sig, err := wallet.SignWithdraw(a, key)
	require.NoError(t, err)
	enc, err := chainclient.Encoding()
	require.NoError(t, err)
	bz, err := enc.Codec.MarshalJSON(&a)
	require.NoError(t, err)
	s := &Server{cfg: Config{ChainID: "idlegpu-local", RelayerFee: sdkmath.NewInt(50_000)}}
	const submitter = "idle1submitter"

	msg, fee, err := s.signedMsg(wallet.SignedJob{Withdraw: bz}, sig, "withdraw", submitter)
	require.NoError(t, err)
	got := msg.(*auctiontypes.MsgSubmitSignedWithdraw)
	require.Equal(t, a, got.Auth)
	require.Equal(t, sdkmath.NewInt(20_000), fee, "never more than the signed maximum")
	require.Equal(t, fee, got.RelayerFee)

	raised := strings.Replace(string(bz), `"amount":"2500000"`, `"amount":"2500001"`, 1)
	_, _, err = s.signedMsg(wallet.SignedJob{Withdraw: json.RawMessage(raised)}, sig, "withdraw", submitter)
	var ae apiError
	require.ErrorAs(t, err, &ae)
	require.Equal(t, http.StatusForbidden, ae.code)

	hexAmount := strings.Replace(string(bz), `"amount":"2500000"`, `"amount":"0x2625a0"`, 1)
	_, _, err = s.signedMsg(wallet.SignedJob{Withdraw: json.RawMessage(hexAmount)}, sig, "withdraw", submitter)
	require.ErrorIs(t, err, auctiontypes.ErrInvalidSignedMsg)
	require.EqualError(t, err, `withdraw.amount.amount: "0x2625a0" is not a canonical decimal integer: invalid signed message`)
}

// A renter cancelling from the job page sees the relayer's fee and may cap
// it: the cancel it signs carries its cap, not the relayer's ask.
func TestCancelFeeIsTheSignersCap(t *testing.T) {
	f := newFixture(t, 1, 1, 0)
	acc, err := sdk.AccAddressFromBech32(f.renters[0])
	require.NoError(t, err)
	wallet := "0x" + strings.ToUpper(common.Bytes2Hex(acc.Bytes()))

	_, page := f.get(t, "/jobs/1")
	require.Contains(t, page, `name="max_relayer_fee" value="0.05 USDC"`)
	require.Contains(t, page, "the relayer asks 0.05 USDC and takes no more than the cap you sign")

	for _, tc := range []struct{ cap, want, signed string }{
		{"", "0.05 USDC", `"50000"`}, // no cap given: the relayer's ask
		{"0.01", "0.01 USDC", `"10000"`},
		{"0", "0.00 USDC", `"0"`},
	} {
		form := url.Values{"wallet": {wallet}, "job_id": {"1"}}
		if tc.cap != "" {
			form.Set("max_relayer_fee", tc.cap)
		}
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodPost, "/api/prepare/cancel", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		f.srv.ServeHTTP(rec, req)
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		var p struct {
			MaxFee string `json:"maxFee"`
			Signed struct {
				Cancel struct {
					MaxRelayerFee struct {
						Amount string `json:"amount"`
					} `json:"max_relayer_fee"`
				} `json:"cancel"`
			} `json:"signed"`
		}
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &p), rec.Body.String())
		require.Equal(t, tc.want, p.MaxFee, tc.cap)
		require.Equal(t, strings.Trim(tc.signed, `"`), p.Signed.Cancel.MaxRelayerFee.Amount, rec.Body.String())
	}
}
