package types

import (
	"encoding/binary"

	errorsmod "cosmossdk.io/errors"
	"github.com/ethereum/go-ethereum/crypto"

	sdk "github.com/cosmos/cosmos-sdk/types"
)

// Validate checks a claim's fields on their own: a nonce from 1, EVM sender
// and recipient, a positive amount, 32-byte transaction and block hashes.
func (c DepositClaim) Validate() error {
	if c.Nonce == 0 {
		return errorsmod.Wrap(ErrInvalidClaim, "nonce starts at 1")
	}
	if _, err := ParseEvmAddress(c.EvmSender); err != nil {
		return errorsmod.Wrapf(ErrInvalidClaim, "evm_sender: %v", err)
	}
	if _, err := sdk.AccAddressFromBech32(c.Recipient); err != nil {
		return errorsmod.Wrapf(ErrInvalidClaim, "recipient: %v", err)
	}
	if c.Amount.IsNil() || !c.Amount.IsPositive() || c.Amount.BigInt().BitLen() > 256 {
		return errorsmod.Wrap(ErrInvalidClaim, "amount must be a positive uint256")
	}
	if _, err := ParseHash32(c.EvmTxHash); err != nil {
		return errorsmod.Wrapf(ErrInvalidClaim, "evm_tx_hash: %v", err)
	}
	if _, err := ParseHash32(c.EvmBlockHash); err != nil {
		return errorsmod.Wrapf(ErrInvalidClaim, "evm_block_hash: %s", err)
	}
	if c.EvmBlockNumber == 0 {
		return errorsmod.Wrap(ErrInvalidClaim, "evm_block_number must be positive")
	}
	return nil
}

// ContentHash is what attestations must agree on: every field of the claim,
// length-prefixed, so two claims hash alike only when they are identical.
func (c DepositClaim) ContentHash() [32]byte {
	var buf []byte
	buf = binary.BigEndian.AppendUint64(buf, c.Nonce)
	buf = binary.BigEndian.AppendUint64(buf, c.EvmBlockNumber)
	for _, s := range []string{c.EvmSender, c.Recipient, c.Amount.String(), c.EvmTxHash, c.EvmBlockHash} {
		buf = binary.BigEndian.AppendUint64(buf, uint64(len(s)))
		buf = append(buf, s...)
	}
	return crypto.Keccak256Hash(buf)
}
