package types

import (
	"encoding/hex"
	"strings"

	errorsmod "cosmossdk.io/errors"
	"github.com/ethereum/go-ethereum/common"
)

// ParseEvmAddress is the bridge's one rule for an EVM address in a message:
// "0x" and 40 hex digits, not the zero address. A mixed-case address must
// carry a correct EIP-55 checksum, so a mistyped one is refused rather than
// paid to; all-lower and all-upper hex carry no checksum and are taken as
// they are.
func ParseEvmAddress(s string) (common.Address, error) {
	if len(s) != 42 || !strings.HasPrefix(s, "0x") {
		return common.Address{}, errorsmod.Wrapf(ErrInvalidEvmAddress, "%q: want 0x and 40 hex digits", s)
	}
	digits := s[2:]
	raw, err := hex.DecodeString(digits)
	if err != nil {
		return common.Address{}, errorsmod.Wrapf(ErrInvalidEvmAddress, "%q: not hex", s)
	}
	addr := common.BytesToAddress(raw)
	if addr == (common.Address{}) {
		return common.Address{}, errorsmod.Wrap(ErrInvalidEvmAddress, "zero address")
	}
	if digits != strings.ToLower(digits) && digits != strings.ToUpper(digits) && addr.Hex() != s {
		return common.Address{}, errorsmod.Wrapf(ErrInvalidEvmAddress, "%q: bad EIP-55 checksum (want %s)", s, addr.Hex())
	}
	return addr, nil
}
