package payout

import (
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

// The vault's domain tags (SettlementVault.VALSET_TAG, ROOT_TAG).
var (
	ValsetTag = crypto.Keccak256Hash([]byte("idlegpu.SettlementVault.valset.v1"))
	RootTag   = crypto.Keccak256Hash([]byte("idlegpu.SettlementVault.root.v1"))
)

// Domain is what every digest binds besides its tag and content: the
// vault's id, the EVM chain id and the vault's address, so a signature for
// one vault or chain is worthless on another.
type Domain struct {
	VaultID common.Hash
	ChainID *big.Int
	Vault   common.Address
}

func mustType(t string) abi.Type {
	typ, err := abi.NewType(t, "", nil)
	if err != nil {
		panic(err)
	}
	return typ
}

var (
	checkpointArgs = abi.Arguments{
		{Type: mustType("bytes32")}, {Type: mustType("bytes32")}, {Type: mustType("uint256")},
		{Type: mustType("address")}, {Type: mustType("uint64")},
		{Type: mustType("address[]")}, {Type: mustType("uint64[]")},
	}
	rootArgs = abi.Arguments{
		{Type: mustType("bytes32")}, {Type: mustType("bytes32")}, {Type: mustType("uint256")},
		{Type: mustType("address")}, {Type: mustType("uint64")}, {Type: mustType("uint64")},
		{Type: mustType("bytes32")}, {Type: mustType("uint256")},
	}
)

// ValsetCheckpoint is keccak256(abi.encode(VALSET_TAG, vaultId, chainid,
// vault, nonce, validators, powers)): what the vault stores for its current
// set and what the current set signs to rotate to v.
func (d Domain) ValsetCheckpoint(v Valset) common.Hash {
	validators := v.Validators
	if validators == nil {
		validators = []common.Address{}
	}
	powers := v.Powers
	if powers == nil {
		powers = []uint64{}
	}
	enc, err := checkpointArgs.Pack(ValsetTag, d.VaultID, d.chainID(), d.Vault, v.Nonce, validators, powers)
	if err != nil {
		panic(err) // every argument has its ABI type by construction
	}
	return crypto.Keccak256Hash(enc)
}

// RootDigest is keccak256(abi.encode(ROOT_TAG, vaultId, chainid, vault,
// valsetNonce, epoch, root, totalCumulative)): what the set with valsetNonce
// signs to propose root for epoch. totalCumulative must fit a uint256.
func (d Domain) RootDigest(valsetNonce, epoch uint64, root common.Hash, totalCumulative *big.Int) (common.Hash, error) {
	if totalCumulative == nil || totalCumulative.Sign() < 0 || totalCumulative.Cmp(maxUint256) > 0 {
		return common.Hash{}, fmt.Errorf("%w: total %s", ErrBadAmount, totalCumulative)
	}
	enc, err := rootArgs.Pack(RootTag, d.VaultID, d.chainID(), d.Vault, valsetNonce, epoch, root, totalCumulative)
	if err != nil {
		return common.Hash{}, err
	}
	return crypto.Keccak256Hash(enc), nil
}

func (d Domain) chainID() *big.Int {
	if d.ChainID == nil {
		return new(big.Int)
	}
	return d.ChainID
}
