package wallet_test

import (
	"encoding/hex"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"
	"github.com/stretchr/testify/require"

	sdkmath "cosmossdk.io/math"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/auction/client/wallet"
	"github.com/idlegpu/idlegpu/x/auction/types"
	offertypes "github.com/idlegpu/idlegpu/x/offer/types"
)

// A fixed key and bid: the vector below is what the chain's encoding gives
// for them; go-ethereum's own EIP-712 encoder must agree.
const vectorKey = "4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318"

func vectorBid(renter common.Address) types.JobBid {
	return types.JobBid{
		Renter: sdk.AccAddress(renter.Bytes()).String(),
		Spec: types.JobSpec{
			Image:        "ghcr.io/idlegpu/train:1",
			ImageDigest:  "sha256:" + "ab" + "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcd",
			ManifestHash: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
			Workload:     offertypes.WORKLOAD_TRAINING,
			GpuCount:     2, MinMemoryMib: 81_920,
			Models: []string{"NVIDIA H100 80GB HBM3"}, Regions: []string{"eu", "na-us"},
			Tier: types.TIER_SILVER, DurationSeconds: 7200,
			MaxPrice:        sdk.NewInt64Coin("uusdc", 1_600_000),
			BidWindowBlocks: 2, AllowSplit: true,
			MinCpuCoresPerGpu: 8, MinHostMemoryMibPerGpu: 65_536, MinDiskGibPerGpu: 100,
			MinEgressMbpsPerGpu: 1000, IngressPort: 8000,
		},
		CosmosChainId: "idlegpu-local", Nonce: 7, Deadline: 1_800_000_000,
		MaxRelayerFee: sdkmath.NewInt(50_000), EvmChainId: 1337,
		VerifyingContract: "0x00000000000000000000000000000000000000a1",
	}
}

func TestJobBidDigestMatchesGoEthereum(t *testing.T) {
	key, err := crypto.HexToECDSA(vectorKey)
	require.NoError(t, err)
	renter := crypto.PubkeyToAddress(key.PublicKey)
	bid := vectorBid(renter)

	want, _, err := apitypes.TypedDataAndHash(wallet.JobBidTypedData(bid, renter))
	require.NoError(t, err)
	structHash, err := types.JobBidHash(bid, renter.Bytes())
	require.NoError(t, err)
	got := types.TypedDataDigest(types.EIP712Domain{ChainID: 1337, VerifyingContract: common.HexToAddress(bid.VerifyingContract)}, structHash)
	require.Equal(t, hex.EncodeToString(want), hex.EncodeToString(got))
	require.Equal(t, vectorDigest, hex.EncodeToString(got), "the committed vector")

	// Every field is signed: changing any one changes the digest.
	for name, change := range map[string]func(*types.JobBid){
		"chain":     func(b *types.JobBid) { b.CosmosChainId = "other" },
		"gpus":      func(b *types.JobBid) { b.Spec.GpuCount = 3 },
		"models":    func(b *types.JobBid) { b.Spec.Models = nil },
		"regions":   func(b *types.JobBid) { b.Spec.Regions = []string{"na-us", "eu"} },
		"tier":      func(b *types.JobBid) { b.Spec.Tier = types.TIER_GOLD },
		"price":     func(b *types.JobBid) { b.Spec.MaxPrice.Amount = sdkmath.NewInt(1_600_001) },
		"denom":     func(b *types.JobBid) { b.Spec.MaxPrice.Denom = "ugpu" },
		"split":     func(b *types.JobBid) { b.Spec.AllowSplit = false },
		"nonce":     func(b *types.JobBid) { b.Nonce = 8 },
		"deadline":  func(b *types.JobBid) { b.Deadline++ },
		"fee":       func(b *types.JobBid) { b.MaxRelayerFee = sdkmath.NewInt(50_001) },
		"disk":      func(b *types.JobBid) { b.Spec.MinDiskGibPerGpu = 101 },
		"egress":    func(b *types.JobBid) { b.Spec.MinEgressMbpsPerGpu = 1001 },
		"ingress":   func(b *types.JobBid) { b.Spec.IngressPort = 8001 },
		"manifest":  func(b *types.JobBid) { b.Spec.ManifestHash = "00" },
		"preempt":   func(b *types.JobBid) { b.Spec.Preemptible = true },
		"workload":  func(b *types.JobBid) { b.Spec.Workload = offertypes.WORKLOAD_INFERENCE },
		"duration":  func(b *types.JobBid) { b.Spec.DurationSeconds = 3600 },
		"imagename": func(b *types.JobBid) { b.Spec.Image = "x" },
	} {
		b := vectorBid(renter)
		change(&b)
		h, err := types.JobBidHash(b, renter.Bytes())
		require.NoError(t, err)
		require.NotEqual(t, structHash, h, name)
		ref, _, err := apitypes.TypedDataAndHash(wallet.JobBidTypedData(b, renter))
		require.NoError(t, err)
		require.Equal(t, hex.EncodeToString(ref), hex.EncodeToString(types.TypedDataDigest(types.EIP712Domain{ChainID: 1337, VerifyingContract: common.HexToAddress(b.VerifyingContract)}, h)), name)
	}
}

func TestWalletSignatureRecoversOnlyTheSigner(t *testing.T) {
	key, err := crypto.HexToECDSA(vectorKey)
	require.NoError(t, err)
	renter := crypto.PubkeyToAddress(key.PublicKey)
	bid := vectorBid(renter)
	sig, err := wallet.SignJobBid(bid, key)
	require.NoError(t, err)
	require.Equal(t, vectorSignature, hex.EncodeToString(sig), "RFC 6979 signatures are deterministic")
	digest, err := hex.DecodeString(vectorDigest)
	require.NoError(t, err)

	got, err := types.RecoverWalletSigner(digest, sig)
	require.NoError(t, err)
	require.Equal(t, renter, got)
	v01 := append([]byte{}, sig...)
	v01[64] -= 27
	got, err = types.RecoverWalletSigner(digest, v01)
	require.NoError(t, err, "v as 0/1 is accepted too")
	require.Equal(t, renter, got)

	// The high-s twin of the same signature: refused.
	n := crypto.S256().Params().N
	s := new(big.Int).SetBytes(sig[32:64])
	high := append([]byte{}, sig...)
	copy(high[32:64], common.LeftPadBytes(new(big.Int).Sub(n, s).Bytes(), 32))
	high[64] = 27 + (1 - (sig[64] - 27))
	_, err = types.RecoverWalletSigner(digest, high)
	require.ErrorIs(t, err, types.ErrBadSignature)

	for name, bad := range map[string][]byte{
		"truncated": sig[:64],
		"too long":  append(append([]byte{}, sig...), 0),
		"v 29":      append(append([]byte{}, sig[:64]...), 29),
		"zero r":    append(make([]byte, 32), sig[32:]...),
	} {
		_, err := types.RecoverWalletSigner(digest, bad)
		require.ErrorIs(t, err, types.ErrBadSignature, name)
	}

	other, err := crypto.GenerateKey()
	require.NoError(t, err)
	otherSig, err := wallet.SignJobBid(vectorBid(crypto.PubkeyToAddress(other.PublicKey)), other)
	require.NoError(t, err)
	got, err = types.RecoverWalletSigner(digest, otherSig)
	if err == nil {
		require.NotEqual(t, renter, got, "another key's signature never recovers the renter")
	}
}

// TestCancelAndCloseDigestsMatchGoEthereum: the chain's CancelJob and
// CloseLease encodings agree with go-ethereum's EIP-712 encoder.
func TestCancelAndCloseDigestsMatchGoEthereum(t *testing.T) {
	key, err := crypto.HexToECDSA(vectorKey)
	require.NoError(t, err)
	renter := crypto.PubkeyToAddress(key.PublicKey)
	contract := "0x00000000000000000000000000000000000000a1"
	d := types.EIP712Domain{ChainID: 1337, VerifyingContract: common.HexToAddress(contract)}
	fee := sdk.NewInt64Coin("uusdc", 20_000)

	cancel := types.CancelJobAuth{Renter: sdk.AccAddress(renter.Bytes()).String(), JobId: 12, CosmosChainId: "idlegpu-local",
		Nonce: 3, Deadline: 1_800_000_000, MaxRelayerFee: fee, EvmChainId: 1337, VerifyingContract: contract}
	want, _, err := apitypes.TypedDataAndHash(wallet.CancelJobTypedData(cancel, renter))
	require.NoError(t, err)
	h, err := types.CancelJobHash(cancel, renter.Bytes())
	require.NoError(t, err)
	require.Equal(t, hex.EncodeToString(want), hex.EncodeToString(types.TypedDataDigest(d, h)))

	closeAuth := types.CloseLeaseAuth{Renter: cancel.Renter, LeaseId: 4, Reason: "done early", CosmosChainId: "idlegpu-local",
		Nonce: 4, Deadline: 1_800_000_000, MaxRelayerFee: fee, EvmChainId: 1337, VerifyingContract: contract}
	want, _, err = apitypes.TypedDataAndHash(wallet.CloseLeaseTypedData(closeAuth, renter))
	require.NoError(t, err)
	h, err = types.CloseLeaseHash(closeAuth, renter.Bytes())
	require.NoError(t, err)
	require.Equal(t, hex.EncodeToString(want), hex.EncodeToString(types.TypedDataDigest(d, h)))
}

// vectorWithdraw is a fixed withdrawal by vectorKey's account: an amount
// past 64 bits, the fee in another denom.
func vectorWithdraw(renter common.Address) types.WithdrawAuth {
	amount, _ := sdkmath.NewIntFromString("123456789012345678901234567890")
	return types.WithdrawAuth{
		Renter: sdk.AccAddress(renter.Bytes()).String(), Amount: sdk.NewCoin("uusdc", amount), CosmosChainId: "idlegpu-local",
		Nonce: 11, Deadline: 1_800_000_000, MaxRelayerFee: sdk.NewInt64Coin("ugpu", 20_000), EvmChainId: 1337,
		VerifyingContract: "0x00000000000000000000000000000000000000a1",
	}
}

// TestWithdrawDigestMatchesGoEthereum: the chain's Withdraw encoding agrees
// with go-ethereum's EIP-712 encoder and the committed vector, and every
// field is signed.
func TestWithdrawDigestMatchesGoEthereum(t *testing.T) {
	key, err := crypto.HexToECDSA(vectorKey)
	require.NoError(t, err)
	renter := crypto.PubkeyToAddress(key.PublicKey)
	d := types.EIP712Domain{ChainID: 1337, VerifyingContract: common.HexToAddress("0x00000000000000000000000000000000000000a1")}
	digest := func(a types.WithdrawAuth) (chain, geth string) {
		h, err := types.WithdrawHash(a, renter.Bytes())
		require.NoError(t, err)
		want, _, err := apitypes.TypedDataAndHash(wallet.WithdrawTypedData(a, renter))
		require.NoError(t, err)
		return hex.EncodeToString(types.TypedDataDigest(d, h)), hex.EncodeToString(want)
	}
	got, want := digest(vectorWithdraw(renter))
	require.Equal(t, want, got)
	require.Equal(t, withdrawVectorDigest, got, "the committed vector")
	sig, err := wallet.SignWithdraw(vectorWithdraw(renter), key)
	require.NoError(t, err)
	require.Equal(t, withdrawVectorSignature, hex.EncodeToString(sig), "RFC 6979 signatures are deterministic")

	for name, change := range map[string]func(*types.WithdrawAuth){
		"chain":     func(a *types.WithdrawAuth) { a.CosmosChainId = "other" },
		"amount":    func(a *types.WithdrawAuth) { a.Amount.Amount = a.Amount.Amount.AddRaw(1) },
		"denom":     func(a *types.WithdrawAuth) { a.Amount.Denom = "ugpu" },
		"nonce":     func(a *types.WithdrawAuth) { a.Nonce++ },
		"deadline":  func(a *types.WithdrawAuth) { a.Deadline++ },
		"fee":       func(a *types.WithdrawAuth) { a.MaxRelayerFee.Amount = a.MaxRelayerFee.Amount.AddRaw(1) },
		"fee denom": func(a *types.WithdrawAuth) { a.MaxRelayerFee.Denom = "uusdc" },
	} {
		a := vectorWithdraw(renter)
		change(&a)
		c, g := digest(a)
		require.Equal(t, g, c, name)
		require.NotEqual(t, withdrawVectorDigest, c, name)
	}
}
