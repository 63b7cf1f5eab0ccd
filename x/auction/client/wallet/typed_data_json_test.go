package wallet_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"
	"github.com/stretchr/testify/require"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/auction/client/wallet"
	"github.com/idlegpu/idlegpu/x/auction/types"
	"github.com/idlegpu/idlegpu/x/base/canon"
)

// TestTypedDataJSON: the typed data a wallet is handed writes every
// integer, the domain's chainId included, as a canonical decimal string
// (go-ethereum alone writes the chainId in hex), and a reader gets back
// the digest the chain checks — for chain ids past 2^63 too.
func TestTypedDataJSON(t *testing.T) {
	key, err := crypto.HexToECDSA(vectorKey)
	require.NoError(t, err)
	renter := crypto.PubkeyToAddress(key.PublicKey)
	bid := emptyArraysBid(renter) // a price past 64 bits, the largest nonce
	bid.EvmChainId = 1<<63 + 5
	contract := common.HexToAddress(bid.VerifyingContract)
	domain := types.EIP712Domain{ChainID: bid.EvmChainId, VerifyingContract: contract}
	cancel := types.CancelJobAuth{Renter: bid.Renter, JobId: 12, CosmosChainId: "c", Nonce: 3, Deadline: 9,
		MaxRelayerFee: sdk.NewInt64Coin("uusdc", 20_000), EvmChainId: bid.EvmChainId, VerifyingContract: bid.VerifyingContract}
	closeAuth := types.CloseLeaseAuth{Renter: bid.Renter, LeaseId: 4, CosmosChainId: "c", Nonce: 4, Deadline: 9,
		MaxRelayerFee: sdk.NewInt64Coin("uusdc", 20_000), EvmChainId: bid.EvmChainId, VerifyingContract: bid.VerifyingContract}

	hashed := func(h []byte, err error) []byte {
		require.NoError(t, err)
		return types.TypedDataDigest(domain, h)
	}
	for _, tc := range []struct {
		td     apitypes.TypedData
		digest []byte
		exact  map[string]string // message fields and their text
	}{
		{wallet.JobBidTypedData(bid, renter), hashed(types.JobBidHash(bid, renter.Bytes())),
			map[string]string{"maxPrice": "1" + strings.Repeat("0", 30), "nonce": "18446744073709551615", "maxRelayerFee": "0", "gpuCount": "1"}},
		{wallet.CancelJobTypedData(cancel, renter), hashed(types.CancelJobHash(cancel, renter.Bytes())),
			map[string]string{"jobId": "12", "maxRelayerFee": "20000"}},
		{wallet.CloseLeaseTypedData(closeAuth, renter), hashed(types.CloseLeaseHash(closeAuth, renter.Bytes())),
			map[string]string{"leaseId": "4", "deadline": "9"}},
	} {
		t.Run(tc.td.PrimaryType, func(t *testing.T) {
			bz, err := wallet.TypedDataJSON(tc.td)
			require.NoError(t, err)

			var doc struct {
				Types   map[string][]apitypes.Type `json:"types"`
				Domain  map[string]any             `json:"domain"`
				Message map[string]any             `json:"message"`
			}
			dec := json.NewDecoder(strings.NewReader(string(bz)))
			dec.UseNumber()
			require.NoError(t, dec.Decode(&doc))
			require.Equal(t, "9223372036854775813", doc.Domain["chainId"])
			ints := 0
			for _, f := range doc.Types[tc.td.PrimaryType] {
				if !strings.HasPrefix(f.Type, "uint") && !strings.HasPrefix(f.Type, "int") {
					continue
				}
				text, ok := doc.Message[f.Name].(string)
				require.True(t, ok, "%s is %T, not a string", f.Name, doc.Message[f.Name])
				require.NoError(t, canon.CheckInt(f.Name, text))
				ints++
			}
			require.Positive(t, ints)
			for name, want := range tc.exact {
				require.Equal(t, want, doc.Message[name], name)
			}

			var back apitypes.TypedData
			require.NoError(t, json.Unmarshal(bz, &back))
			got, _, err := apitypes.TypedDataAndHash(back)
			require.NoError(t, err)
			require.Equal(t, tc.digest, got, "the wallet signs what the chain checks")
		})
	}

	// What go-ethereum writes by itself: the chainId in hex.
	raw, err := json.Marshal(wallet.CancelJobTypedData(cancel, renter))
	require.NoError(t, err)
	require.Contains(t, string(raw), `"chainId":"0x8000000000000005"`)
}
