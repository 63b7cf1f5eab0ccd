package types

import (
	"encoding/binary"
	"math/big"
	"strings"

	errorsmod "cosmossdk.io/errors"
	sdkmath "cosmossdk.io/math"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

// The EIP-712 schema of wallet-signed messages (docs/design.md#wallet-signed-bids):
// a small purpose-built type per message, not a rendering of a Cosmos tx,
// so a wallet shows the renter each field it signs.
const (
	// EIP712Name and EIP712Version are the domain's name and version.
	EIP712Name    = "idlegpu"
	EIP712Version = "1"

	// EIP712DomainType is the domain's type.
	EIP712DomainType = "EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"

	// JobBidType is the JobBid's type: everything MsgPostJob carries, the
	// Cosmos chain id, a nonce, a deadline and the most a relayer may be paid.
	JobBidType = "JobBid(string cosmosChainId,address renter,string image,string imageDigest,string manifestHash," +
		"string workload,uint32 gpuCount,uint64 minMemoryMib,string[] models,string[] regions,string tier," +
		"bool preemptible,uint64 durationSeconds,uint256 maxPrice,string priceDenom,uint32 bidWindowBlocks," +
		"bool allowSplit,uint32 minCpuCoresPerGpu,uint64 minHostMemoryMibPerGpu,uint64 minDiskGibPerGpu," +
		"uint32 minEgressMbpsPerGpu,uint32 ingressPort,uint64 nonce,uint64 deadline,uint256 maxRelayerFee)"

	// CancelJobType and CloseLeaseType are a renter's signed cancel and close.
	CancelJobType  = "CancelJob(string cosmosChainId,address renter,uint64 jobId,uint64 nonce,uint64 deadline,uint256 maxRelayerFee,string feeDenom)"
	CloseLeaseType = "CloseLease(string cosmosChainId,address renter,uint64 leaseId,string reason,uint64 nonce,uint64 deadline,uint256 maxRelayerFee,string feeDenom)"

	// WithdrawType is a wallet account's withdrawal to its own EVM address
	// (the renter's 20 bytes: there is no recipient to choose).
	WithdrawType = "Withdraw(string cosmosChainId,address renter,uint256 amount,string denom,uint64 nonce,uint64 deadline,uint256 maxRelayerFee,string feeDenom)"
)

var (
	eip712DomainTypeHash = crypto.Keccak256([]byte(EIP712DomainType))
	jobBidTypeHash       = crypto.Keccak256([]byte(JobBidType))
	cancelJobTypeHash    = crypto.Keccak256([]byte(CancelJobType))
	closeLeaseTypeHash   = crypto.Keccak256([]byte(CloseLeaseType))
	withdrawTypeHash     = crypto.Keccak256([]byte(WithdrawType))
)

// EIP712Domain is the domain a wallet signs under: the EVM chain its
// wallet is on and the settlement contract (chain params).
type EIP712Domain struct {
	ChainID           uint64
	VerifyingContract common.Address
}

// ParseEVMAddress parses a 0x-prefixed 20-byte hex address.
func ParseEVMAddress(s string) (common.Address, error) {
	if !strings.HasPrefix(s, "0x") || !common.IsHexAddress(s) {
		return common.Address{}, errorsmod.Wrapf(ErrInvalidSignedMsg, "%q is not a 0x-prefixed 20-byte address", s)
	}
	return common.HexToAddress(s), nil
}

// Separator is the domain's hashStruct (EIP-712 domainSeparator).
func (d EIP712Domain) Separator() []byte {
	return crypto.Keccak256(
		eip712DomainTypeHash,
		crypto.Keccak256([]byte(EIP712Name)),
		crypto.Keccak256([]byte(EIP712Version)),
		encUint64(d.ChainID),
		common.LeftPadBytes(d.VerifyingContract.Bytes(), 32),
	)
}

// JobBidHash is the bid's hashStruct. renter is the 20 address bytes of
// bid.Renter (the caller decodes the bech32 once).
func JobBidHash(bid JobBid, renter []byte) ([]byte, error) {
	if err := walletAddress(renter); err != nil {
		return nil, err
	}
	s := bid.Spec
	maxPrice, err := encUint256(s.MaxPrice.Amount, "max price")
	if err != nil {
		return nil, err
	}
	fee, err := encUint256(bid.MaxRelayerFee, "max relayer fee")
	if err != nil {
		return nil, err
	}
	return crypto.Keccak256(
		jobBidTypeHash,
		encString(bid.CosmosChainId),
		common.LeftPadBytes(renter, 32),
		encString(s.Image),
		encString(s.ImageDigest),
		encString(s.ManifestHash),
		encString(s.Workload.String()),
		encUint64(uint64(s.GpuCount)),
		encUint64(s.MinMemoryMib),
		encStrings(s.Models),
		encStrings(s.Regions),
		encString(s.Tier.String()),
		encBool(s.Preemptible),
		encUint64(s.DurationSeconds),
		maxPrice,
		encString(s.MaxPrice.Denom),
		encUint64(uint64(s.BidWindowBlocks)),
		encBool(s.AllowSplit),
		encUint64(uint64(s.MinCpuCoresPerGpu)),
		encUint64(s.MinHostMemoryMibPerGpu),
		encUint64(s.MinDiskGibPerGpu),
		encUint64(uint64(s.MinEgressMbpsPerGpu)),
		encUint64(uint64(s.IngressPort)),
		encUint64(bid.Nonce),
		encUint64(bid.Deadline),
		fee,
	), nil
}

// CancelJobHash is a CancelJobAuth's hashStruct; renter its 20 address bytes.
func CancelJobHash(a CancelJobAuth, renter []byte) ([]byte, error) {
	if err := walletAddress(renter); err != nil {
		return nil, err
	}
	fee, err := encUint256(a.MaxRelayerFee.Amount, "max relayer fee")
	if err != nil {
		return nil, err
	}
	return crypto.Keccak256(cancelJobTypeHash, encString(a.CosmosChainId), common.LeftPadBytes(renter, 32),
		encUint64(a.JobId), encUint64(a.Nonce), encUint64(a.Deadline), fee, encString(a.MaxRelayerFee.Denom)), nil
}

// CloseLeaseHash is a CloseLeaseAuth's hashStruct; renter its 20 address bytes.
func CloseLeaseHash(a CloseLeaseAuth, renter []byte) ([]byte, error) {
	if err := walletAddress(renter); err != nil {
		return nil, err
	}
	fee, err := encUint256(a.MaxRelayerFee.Amount, "max relayer fee")
	if err != nil {
		return nil, err
	}
	return crypto.Keccak256(closeLeaseTypeHash, encString(a.CosmosChainId), common.LeftPadBytes(renter, 32),
		encUint64(a.LeaseId), encString(a.Reason), encUint64(a.Nonce), encUint64(a.Deadline), fee, encString(a.MaxRelayerFee.Denom)), nil
}

// WithdrawHash is a WithdrawAuth's hashStruct; renter its 20 address bytes.
func WithdrawHash(a WithdrawAuth, renter []byte) ([]byte, error) {
	if err := walletAddress(renter); err != nil {
		return nil, err
	}
	amount, err := encUint256(a.Amount.Amount, "amount")
	if err != nil {
		return nil, err
	}
	fee, err := encUint256(a.MaxRelayerFee.Amount, "max relayer fee")
	if err != nil {
		return nil, err
	}
	return crypto.Keccak256(withdrawTypeHash, encString(a.CosmosChainId), common.LeftPadBytes(renter, 32),
		amount, encString(a.Amount.Denom), encUint64(a.Nonce), encUint64(a.Deadline), fee, encString(a.MaxRelayerFee.Denom)), nil
}

func walletAddress(renter []byte) error {
	if len(renter) != common.AddressLength {
		return errorsmod.Wrapf(ErrInvalidSignedMsg, "renter has %d address bytes; a wallet account has 20", len(renter))
	}
	return nil
}

// TypedDataDigest is keccak256(0x19 0x01 ‖ domainSeparator ‖ hashStruct):
// what the wallet signs.
func TypedDataDigest(d EIP712Domain, structHash []byte) []byte {
	return crypto.Keccak256([]byte{0x19, 0x01}, d.Separator(), structHash)
}

func encString(s string) []byte { return crypto.Keccak256([]byte(s)) }

// encStrings encodes a string[]: the hash of its members' hashes, concatenated.
func encStrings(ss []string) []byte {
	parts := make([][]byte, len(ss))
	for i, s := range ss {
		parts[i] = encString(s)
	}
	return crypto.Keccak256(parts...)
}

func encUint64(v uint64) []byte {
	var b [32]byte
	binary.BigEndian.PutUint64(b[24:], v)
	return b[:]
}

func encBool(v bool) []byte {
	if v {
		return encUint64(1)
	}
	return encUint64(0)
}

// maxUint256 is 2^256 − 1.
var maxUint256 = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))

func encUint256(v sdkmath.Int, field string) ([]byte, error) {
	if v.IsNil() || v.IsNegative() || v.BigInt().Cmp(maxUint256) > 0 {
		return nil, errorsmod.Wrapf(ErrInvalidSignedMsg, "%s %s is not a uint256", field, v)
	}
	return common.LeftPadBytes(v.BigInt().Bytes(), 32), nil
}
