package wallet_test

import (
	"crypto/ecdsa"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"
	"github.com/stretchr/testify/require"

	sdkmath "cosmossdk.io/math"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/scripts/npmtest"
	"github.com/idlegpu/idlegpu/x/auction/client/wallet"
	"github.com/idlegpu/idlegpu/x/auction/types"
	offertypes "github.com/idlegpu/idlegpu/x/offer/types"
)

// updateEthersVectors rewrites testdata/*_vector*.json from the Go encoders:
//
//	go test ./x/auction/client/wallet/ -run TestEthers -update-ethers-vectors
var updateEthersVectors = flag.Bool("update-ethers-vectors", false, "rewrite testdata/*_vector*.json")

// ethersVector is what scripts/eip712/crosscheck.mjs reads: the bid as
// ethers' TypedDataEncoder takes it, and what the chain makes of it.
type ethersVector struct {
	About       string                     `json:"about"`
	Domain      ethersDomain               `json:"domain"`
	Types       map[string][]apitypes.Type `json:"types"`
	PrimaryType string                     `json:"primaryType"`
	Message     map[string]any             `json:"message"`
	Key         string                     `json:"key"`

	ExpectedDomainSeparator string `json:"expectedDomainSeparator"`
	ExpectedStructHash      string `json:"expectedStructHash"`
	ExpectedDigest          string `json:"expectedDigest"`
	ExpectedSignature       string `json:"expectedSignature"`
	GoSignature             string `json:"goSignature"`
}

type ethersDomain struct {
	Name              string `json:"name"`
	Version           string `json:"version"`
	ChainID           string `json:"chainId"`
	VerifyingContract string `json:"verifyingContract"`
}

// emptyArraysBid differs from vectorBid in every field, with empty
// string arrays, the BRONZE tier, preemptible, no split, no relayer fee,
// a price past 64 bits and the largest uint64 nonce.
func emptyArraysBid(renter common.Address) types.JobBid {
	return types.JobBid{
		Renter: sdk.AccAddress(renter.Bytes()).String(),
		Spec: types.JobSpec{
			Image:        "docker.io/idlegpu/serve:2",
			ImageDigest:  "sha256:" + strings.Repeat("0f", 32),
			ManifestHash: strings.Repeat("e3", 32),
			Workload:     offertypes.WORKLOAD_INFERENCE,
			GpuCount:     1, MinMemoryMib: 24_576,
			Models: []string{}, Regions: []string{},
			Tier: types.TIER_BRONZE, Preemptible: true, DurationSeconds: 600,
			MaxPrice:        sdk.NewCoin("ugpu", sdkmath.NewIntFromBigInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(30), nil))),
			BidWindowBlocks: 1, AllowSplit: false,
		},
		CosmosChainId: "idlegpu-testnet-2", Nonce: ^uint64(0), Deadline: 4_102_444_800,
		MaxRelayerFee: sdkmath.ZeroInt(), EvmChainId: 84532,
		VerifyingContract: "0x5fbdb2315678afecb367f032d93f642f64180aa3",
	}
}

// TestEthersAgreesWithTheChain checks the committed vectors are what the
// chain's encoder gives for vectorBid, emptyArraysBid and vectorWithdraw, then (where node
// and npm are installed) that ethers v6 gives the same digest and
// signature and accepts the Go wallet's signature.
func TestEthersAgreesWithTheChain(t *testing.T) {
	key, err := crypto.HexToECDSA(vectorKey)
	require.NoError(t, err)
	renter := crypto.PubkeyToAddress(key.PublicKey)

	vectors := []struct {
		file  string
		build func(*testing.T) ethersVector
	}{
		{"jobbid_vector.json", func(t *testing.T) ethersVector { return buildEthersVector(t, vectorBid(renter), key) }},
		{"jobbid_vector_empty_arrays.json", func(t *testing.T) ethersVector { return buildEthersVector(t, emptyArraysBid(renter), key) }},
		{"withdraw_vector.json", func(t *testing.T) ethersVector { return buildWithdrawVector(t, vectorWithdraw(renter), key) }},
	}
	var files []string
	for _, vc := range vectors {
		path := filepath.Join("testdata", vc.file)
		files = append(files, path)
		t.Run(vc.file, func(t *testing.T) {
			v := vc.build(t)
			switch vc.file {
			case "jobbid_vector.json":
				require.Equal(t, "0x"+vectorDigest, v.ExpectedDigest, "the committed digest (vectors_test.go)")
				require.Equal(t, "0x"+vectorSignature, v.ExpectedSignature, "the committed signature (vectors_test.go)")
			case "withdraw_vector.json":
				require.Equal(t, "0x"+withdrawVectorDigest, v.ExpectedDigest, "the committed digest (vectors_test.go)")
				require.Equal(t, "0x"+withdrawVectorSignature, v.ExpectedSignature, "the committed signature (vectors_test.go)")
			}
			got, err := json.MarshalIndent(v, "", "  ")
			require.NoError(t, err)
			got = append(got, '\n')
			if *updateEthersVectors {
				require.NoError(t, os.WriteFile(path, got, 0o644))
				return
			}
			want, err := os.ReadFile(path)
			require.NoError(t, err, "generate it with -update-ethers-vectors")
			require.JSONEq(t, string(want), string(got),
				"%s is stale: the Go encoders now give the actual JSON (rewrite it with -update-ethers-vectors)", path)
		})
	}
	if t.Failed() {
		return
	}

	t.Run("ethers", func(t *testing.T) {
		var args []string
		for _, f := range files {
			abs, err := filepath.Abs(f)
			require.NoError(t, err)
			args = append(args, abs)
		}
		out, err := npmtest.Run(t, filepath.Join("..", "..", "..", "..", "scripts", "eip712"), "ethers cross-check", "crosscheck.mjs", args...)
		require.NoError(t, err, "ethers disagrees with the chain:\n%s", out)
	})
}

// buildEthersVector renders bid as ethers takes it (from the Go wallet's
// typed data) with the chain's digest and the Go wallet's signature.
func buildEthersVector(t *testing.T, bid types.JobBid, key *ecdsa.PrivateKey) ethersVector {
	t.Helper()
	renter := crypto.PubkeyToAddress(key.PublicKey)
	td := wallet.JobBidTypedData(bid, renter)
	require.Equal(t, types.JobBidType, encodeTypeString("JobBid", td.Types["JobBid"]))
	structHash, err := types.JobBidHash(bid, renter.Bytes())
	require.NoError(t, err)
	sig, err := wallet.SignJobBid(bid, key)
	require.NoError(t, err)
	return typedDataVector(t, td, structHash, sig, key)
}

// buildWithdrawVector is buildEthersVector for a signed withdrawal.
func buildWithdrawVector(t *testing.T, a types.WithdrawAuth, key *ecdsa.PrivateKey) ethersVector {
	t.Helper()
	renter := crypto.PubkeyToAddress(key.PublicKey)
	td := wallet.WithdrawTypedData(a, renter)
	require.Equal(t, types.WithdrawType, encodeTypeString("Withdraw", td.Types["Withdraw"]))
	structHash, err := types.WithdrawHash(a, renter.Bytes())
	require.NoError(t, err)
	sig, err := wallet.SignWithdraw(a, key)
	require.NoError(t, err)
	return typedDataVector(t, td, structHash, sig, key)
}

// typedDataVector renders the Go wallet's typed data td as ethers takes it,
// with the chain's struct hash and digest and the Go wallet's signature,
// after checking go-ethereum agrees and the signature recovers the key.
func typedDataVector(t *testing.T, td apitypes.TypedData, structHash, sig []byte, key *ecdsa.PrivateKey) ethersVector {
	t.Helper()
	renter := crypto.PubkeyToAddress(key.PublicKey)
	primary := td.PrimaryType
	// The typed data's schema is the chain's, to the letter.
	require.Equal(t, types.EIP712DomainType, encodeTypeString("EIP712Domain", td.Types["EIP712Domain"]))
	require.Len(t, td.Types, 2)

	message := make(map[string]any, len(td.Message))
	for _, f := range td.Types[primary] {
		val, ok := td.Message[f.Name]
		require.True(t, ok, "the message lacks %s", f.Name)
		switch x := val.(type) {
		case *big.Int:
			message[f.Name] = x.String()
		case []interface{}:
			if x == nil {
				x = []interface{}{}
			}
			message[f.Name] = x
		case string, bool:
			message[f.Name] = x
		default:
			t.Fatalf("%s: unexpected %T in the typed data", f.Name, val)
		}
	}
	require.Len(t, message, len(td.Message), "the message has fields the type lacks")
	require.Equal(t, renter.Hex(), message["renter"], "the renter is checksummed")

	contract, err := types.ParseEVMAddress(td.Domain.VerifyingContract)
	require.NoError(t, err)
	domain := types.EIP712Domain{ChainID: (*big.Int)(td.Domain.ChainId).Uint64(), VerifyingContract: contract}
	digest := types.TypedDataDigest(domain, structHash)

	// go-ethereum agrees with the chain before ethers is asked.
	gethDigest, _, err := apitypes.TypedDataAndHash(td)
	require.NoError(t, err)
	require.Equal(t, hex.EncodeToString(digest), hex.EncodeToString(gethDigest), "go-ethereum's digest")

	signer, err := types.RecoverWalletSigner(digest, sig)
	require.NoError(t, err)
	require.Equal(t, renter, signer)

	return ethersVector{
		About: "EIP-712 " + primary + " vector, generated by TestEthersAgreesWithTheChain in x/auction/client/wallet/ethers_test.go " +
			"(-update-ethers-vectors) and checked against ethers by scripts/eip712/crosscheck.mjs. Test key: never fund it.",
		Domain: ethersDomain{
			Name:              td.Domain.Name,
			Version:           td.Domain.Version,
			ChainID:           (*big.Int)(td.Domain.ChainId).String(),
			VerifyingContract: common.HexToAddress(td.Domain.VerifyingContract).Hex(),
		},
		Types:                   map[string][]apitypes.Type{primary: td.Types[primary]},
		PrimaryType:             primary,
		Message:                 message,
		Key:                     "0x" + hex.EncodeToString(crypto.FromECDSA(key)),
		ExpectedDomainSeparator: "0x" + hex.EncodeToString(domain.Separator()),
		ExpectedStructHash:      "0x" + hex.EncodeToString(structHash),
		ExpectedDigest:          "0x" + hex.EncodeToString(digest),
		ExpectedSignature:       "0x" + hex.EncodeToString(sig),
		GoSignature:             "0x" + hex.EncodeToString(sig),
	}
}

func encodeTypeString(name string, fields []apitypes.Type) string {
	parts := make([]string, len(fields))
	for i, f := range fields {
		parts[i] = f.Type + " " + f.Name
	}
	return fmt.Sprintf("%s(%s)", name, strings.Join(parts, ","))
}
