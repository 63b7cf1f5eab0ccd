// Package wallet builds the EIP-712 typed data a renter's wallet signs
// (eth_signTypedData_v4), signs it with a local Ethereum key and reads the
// signed messages back from JSON, for the CLI, relayers and tests. The
// chain does not use it: it hashes with x/auction/types (eip712.go), and
// the tests check the two agree.
package wallet

import (
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/math"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"

	"github.com/idlegpu/idlegpu/x/auction/types"
)

var domainFields = []apitypes.Type{
	{Name: "name", Type: "string"},
	{Name: "version", Type: "string"},
	{Name: "chainId", Type: "uint256"},
	{Name: "verifyingContract", Type: "address"},
}

var jobBidFields = []apitypes.Type{
	{Name: "cosmosChainId", Type: "string"},
	{Name: "renter", Type: "address"},
	{Name: "image", Type: "string"},
	{Name: "imageDigest", Type: "string"},
	{Name: "manifestHash", Type: "string"},
	{Name: "workload", Type: "string"},
	{Name: "gpuCount", Type: "uint32"},
	{Name: "minMemoryMib", Type: "uint64"},
	{Name: "models", Type: "string[]"},
	{Name: "regions", Type: "string[]"},
	{Name: "tier", Type: "string"},
	{Name: "preemptible", Type: "bool"},
	{Name: "durationSeconds", Type: "uint64"},
	{Name: "maxPrice", Type: "uint256"},
	{Name: "priceDenom", Type: "string"},
	{Name: "bidWindowBlocks", Type: "uint32"},
	{Name: "allowSplit", Type: "bool"},
	{Name: "minCpuCoresPerGpu", Type: "uint32"},
	{Name: "minHostMemoryMibPerGpu", Type: "uint64"},
	{Name: "minDiskGibPerGpu", Type: "uint64"},
	{Name: "minEgressMbpsPerGpu", Type: "uint32"},
	{Name: "ingressPort", Type: "uint32"},
	{Name: "nonce", Type: "uint64"},
	{Name: "deadline", Type: "uint64"},
	{Name: "maxRelayerFee", Type: "uint256"},
}

// JobBidTypedData is the bid as a wallet's eth_signTypedData_v4 takes it;
// renter is its 20 address bytes.
func JobBidTypedData(bid types.JobBid, renter common.Address) apitypes.TypedData {
	s := bid.Spec
	return apitypes.TypedData{
		Types:       apitypes.Types{"EIP712Domain": domainFields, "JobBid": jobBidFields},
		PrimaryType: "JobBid",
		Domain: apitypes.TypedDataDomain{
			Name: types.EIP712Name, Version: types.EIP712Version,
			ChainId:           chainID(bid.EvmChainId),
			VerifyingContract: bid.VerifyingContract,
		},
		Message: apitypes.TypedDataMessage{
			"cosmosChainId":          bid.CosmosChainId,
			"renter":                 renter.Hex(),
			"image":                  s.Image,
			"imageDigest":            s.ImageDigest,
			"manifestHash":           s.ManifestHash,
			"workload":               s.Workload.String(),
			"gpuCount":               new(big.Int).SetUint64(uint64(s.GpuCount)),
			"minMemoryMib":           new(big.Int).SetUint64(s.MinMemoryMib),
			"models":                 stringList(s.Models),
			"regions":                stringList(s.Regions),
			"tier":                   s.Tier.String(),
			"preemptible":            s.Preemptible,
			"durationSeconds":        new(big.Int).SetUint64(s.DurationSeconds),
			"maxPrice":               s.MaxPrice.Amount.BigInt(),
			"priceDenom":             s.MaxPrice.Denom,
			"bidWindowBlocks":        new(big.Int).SetUint64(uint64(s.BidWindowBlocks)),
			"allowSplit":             s.AllowSplit,
			"minCpuCoresPerGpu":      new(big.Int).SetUint64(uint64(s.MinCpuCoresPerGpu)),
			"minHostMemoryMibPerGpu": new(big.Int).SetUint64(s.MinHostMemoryMibPerGpu),
			"minDiskGibPerGpu":       new(big.Int).SetUint64(s.MinDiskGibPerGpu),
			"minEgressMbpsPerGpu":    new(big.Int).SetUint64(uint64(s.MinEgressMbpsPerGpu)),
			"ingressPort":            new(big.Int).SetUint64(uint64(s.IngressPort)),
			"nonce":                  new(big.Int).SetUint64(bid.Nonce),
			"deadline":               new(big.Int).SetUint64(bid.Deadline),
			"maxRelayerFee":          bid.MaxRelayerFee.BigInt(),
		},
	}
}

// stringList gives apitypes a []interface{} (what it expects of arrays).
func stringList(ss []string) []interface{} {
	out := make([]interface{}, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

var cancelJobFields = []apitypes.Type{
	{Name: "cosmosChainId", Type: "string"},
	{Name: "renter", Type: "address"},
	{Name: "jobId", Type: "uint64"},
	{Name: "nonce", Type: "uint64"},
	{Name: "deadline", Type: "uint64"},
	{Name: "maxRelayerFee", Type: "uint256"},
	{Name: "feeDenom", Type: "string"},
}

var closeLeaseFields = []apitypes.Type{
	{Name: "cosmosChainId", Type: "string"},
	{Name: "renter", Type: "address"},
	{Name: "leaseId", Type: "uint64"},
	{Name: "reason", Type: "string"},
	{Name: "nonce", Type: "uint64"},
	{Name: "deadline", Type: "uint64"},
	{Name: "maxRelayerFee", Type: "uint256"},
	{Name: "feeDenom", Type: "string"},
}

var withdrawFields = []apitypes.Type{
	{Name: "cosmosChainId", Type: "string"},
	{Name: "renter", Type: "address"},
	{Name: "amount", Type: "uint256"},
	{Name: "denom", Type: "string"},
	{Name: "nonce", Type: "uint64"},
	{Name: "deadline", Type: "uint64"},
	{Name: "maxRelayerFee", Type: "uint256"},
	{Name: "feeDenom", Type: "string"},
}

func domain(evmChainID uint64, contract string) apitypes.TypedDataDomain {
	return apitypes.TypedDataDomain{
		Name: types.EIP712Name, Version: types.EIP712Version,
		ChainId: chainID(evmChainID), VerifyingContract: contract,
	}
}

// chainID is an EVM chain id as apitypes holds it (all 64 bits: an int64
// conversion would turn ids past 2^63 negative).
func chainID(id uint64) *math.HexOrDecimal256 {
	return (*math.HexOrDecimal256)(new(big.Int).SetUint64(id))
}

// CancelJobTypedData is a renter's cancel as eth_signTypedData_v4 takes it.
func CancelJobTypedData(a types.CancelJobAuth, renter common.Address) apitypes.TypedData {
	return apitypes.TypedData{
		Types:       apitypes.Types{"EIP712Domain": domainFields, "CancelJob": cancelJobFields},
		PrimaryType: "CancelJob",
		Domain:      domain(a.EvmChainId, a.VerifyingContract),
		Message: apitypes.TypedDataMessage{
			"cosmosChainId": a.CosmosChainId, "renter": renter.Hex(),
			"jobId": new(big.Int).SetUint64(a.JobId), "nonce": new(big.Int).SetUint64(a.Nonce),
			"deadline": new(big.Int).SetUint64(a.Deadline), "maxRelayerFee": a.MaxRelayerFee.Amount.BigInt(),
			"feeDenom": a.MaxRelayerFee.Denom,
		},
	}
}

// CloseLeaseTypedData is a renter's close as eth_signTypedData_v4 takes it.
func CloseLeaseTypedData(a types.CloseLeaseAuth, renter common.Address) apitypes.TypedData {
	return apitypes.TypedData{
		Types:       apitypes.Types{"EIP712Domain": domainFields, "CloseLease": closeLeaseFields},
		PrimaryType: "CloseLease",
		Domain:      domain(a.EvmChainId, a.VerifyingContract),
		Message: apitypes.TypedDataMessage{
			"cosmosChainId": a.CosmosChainId, "renter": renter.Hex(),
			"leaseId": new(big.Int).SetUint64(a.LeaseId), "reason": a.Reason,
			"nonce": new(big.Int).SetUint64(a.Nonce), "deadline": new(big.Int).SetUint64(a.Deadline),
			"maxRelayerFee": a.MaxRelayerFee.Amount.BigInt(), "feeDenom": a.MaxRelayerFee.Denom,
		},
	}
}

// WithdrawTypedData is a wallet account's withdrawal (to its own EVM
// address) as eth_signTypedData_v4 takes it.
func WithdrawTypedData(a types.WithdrawAuth, renter common.Address) apitypes.TypedData {
	return apitypes.TypedData{
		Types:       apitypes.Types{"EIP712Domain": domainFields, "Withdraw": withdrawFields},
		PrimaryType: "Withdraw",
		Domain:      domain(a.EvmChainId, a.VerifyingContract),
		Message: apitypes.TypedDataMessage{
			"cosmosChainId": a.CosmosChainId, "renter": renter.Hex(),
			"amount": a.Amount.Amount.BigInt(), "denom": a.Amount.Denom,
			"nonce": new(big.Int).SetUint64(a.Nonce), "deadline": new(big.Int).SetUint64(a.Deadline),
			"maxRelayerFee": a.MaxRelayerFee.Amount.BigInt(), "feeDenom": a.MaxRelayerFee.Denom,
		},
	}
}
