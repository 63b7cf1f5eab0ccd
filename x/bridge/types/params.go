package types

import (
	"encoding/hex"
	"fmt"
	"strings"

	errorsmod "cosmossdk.io/errors"
	"cosmossdk.io/math"

	sdk "github.com/cosmos/cosmos-sdk/types"
	"github.com/ethereum/go-ethereum/common"
)

// Defaults. A vault id of its own per deployment is set in genesis; the
// default names the development network's.
const (
	DefaultDenom               = "uusdc"
	DefaultVaultID             = "0x69646c6567707520646576656c6f706d656e74207661756c7400000000000000" // "idlegpu development vault", zero-padded
	DefaultEvmConfirmations    = 12
	DefaultPayoutEpochBlocks   = 100
	DefaultValsetChangeBps     = 500
	DefaultSigningWindowBlocks = 500
	DefaultMaxCreditsPerBlock  = 100
	DefaultMaxRecipients       = 10_000
	DefaultRootsKept           = 8
	DefaultMaxPrunesPerBlock   = 2_000
	// DefaultEquivocationSlashBps: 5 % of a validator's bonded tokens.
	DefaultEquivocationSlashBps = 500
	// DefaultEVMChainID is a development EVM chain's (geth --dev); a
	// network sets the chain its vault is deployed on.
	DefaultEVMChainID uint64 = 1337
	// DefaultVaultAddress is the zero address: no vault until governance
	// (or genesis) names the deployed one.
	DefaultVaultAddress = "0x0000000000000000000000000000000000000000"
	// DefaultMaxDutyChecksPerBlock is the least that keeps up with the
	// default max_credits_per_block (DutyChecksKeepUp).
	DefaultMaxDutyChecksPerBlock = DefaultMaxCreditsPerBlock + DutiesBesideCredits
)

// DutiesBesideCredits is what a block can queue for duty checks besides its
// credited deposits: one valset and one payout root.
const DutiesBesideCredits = 2

// DefaultParams returns the default x/bridge parameters.
func DefaultParams() Params {
	return Params{
		Denom:                 DefaultDenom,
		VaultId:               DefaultVaultID,
		EvmConfirmations:      DefaultEvmConfirmations,
		PayoutEpochBlocks:     DefaultPayoutEpochBlocks,
		ValsetChangeBps:       DefaultValsetChangeBps,
		SigningWindowBlocks:   DefaultSigningWindowBlocks,
		MaxCreditsPerBlock:    DefaultMaxCreditsPerBlock,
		MaxRecipients:         DefaultMaxRecipients,
		RootsKept:             DefaultRootsKept,
		MinWithdrawal:         math.NewInt(1_000_000), // 1 USDC: a leaf costs every root a hash
		MaxPrunesPerBlock:     DefaultMaxPrunesPerBlock,
		EquivocationSlashBps:  DefaultEquivocationSlashBps,
		EvmChainId:            DefaultEVMChainID,
		VaultAddress:          DefaultVaultAddress,
		MaxDutyChecksPerBlock: DefaultMaxDutyChecksPerBlock,
	}
}

// ParseHash32 reads a 0x-prefixed 32-byte hex value.
func ParseHash32(s string) ([32]byte, error) {
	var out [32]byte
	if len(s) != 66 || !strings.HasPrefix(s, "0x") {
		return out, errorsmod.Wrapf(ErrInvalidParams, "%q: want 0x and 64 hex digits", s)
	}
	raw, err := hex.DecodeString(s[2:])
	if err != nil {
		return out, errorsmod.Wrapf(ErrInvalidParams, "%q: not hex", s)
	}
	copy(out[:], raw)
	return out, nil
}

// Validate checks every field; the error wraps ErrInvalidParams and names it.
func (p Params) Validate() error {
	if err := sdk.ValidateDenom(p.Denom); err != nil {
		return errorsmod.Wrapf(ErrInvalidParams, "denom: %v", err)
	}
	id, err := ParseHash32(p.VaultId)
	if err != nil {
		return errorsmod.Wrapf(ErrInvalidParams, "vault_id: %v", err)
	}
	if id == ([32]byte{}) {
		return errorsmod.Wrap(ErrInvalidParams, "vault_id must not be zero")
	}
	for _, f := range []struct {
		name string
		v    uint64
	}{
		{"evm_confirmations", p.EvmConfirmations},
		{"payout_epoch_blocks", p.PayoutEpochBlocks},
		{"signing_window_blocks", p.SigningWindowBlocks},
		{"max_credits_per_block", uint64(p.MaxCreditsPerBlock)},
		{"max_recipients", uint64(p.MaxRecipients)},
		{"roots_kept", uint64(p.RootsKept)},
		{"max_prunes_per_block", uint64(p.MaxPrunesPerBlock)},
	} {
		if f.v == 0 {
			return errorsmod.Wrapf(ErrInvalidParams, "%s must be positive", f.name)
		}
	}
	if p.ValsetChangeBps == 0 || p.ValsetChangeBps > 10_000 {
		return errorsmod.Wrapf(ErrInvalidParams, "valset_change_bps must be in 1..10000, got %d", p.ValsetChangeBps)
	}
	if p.EquivocationSlashBps == 0 || p.EquivocationSlashBps > 10_000 {
		return errorsmod.Wrapf(ErrInvalidParams, "equivocation_slash_bps must be in 1..10000, got %d", p.EquivocationSlashBps)
	}
	if p.MinWithdrawal.IsNil() || !p.MinWithdrawal.IsPositive() {
		return errorsmod.Wrap(ErrInvalidParams, "min_withdrawal must be positive")
	}
	// A root's leaves are loaded and hashed in one EndBlock; keep that bounded.
	if p.MaxRecipients > 1_000_000 {
		return errorsmod.Wrapf(ErrInvalidParams, "max_recipients must be at most 1000000, got %d", p.MaxRecipients)
	}
	if err := ValidateDomain(p.EvmChainId, p.VaultAddress); err != nil {
		return err
	}
	return DutyChecksKeepUp(p.MaxCreditsPerBlock, p.MaxDutyChecksPerBlock)
}

// ValidateDomain checks the vault's chain id (positive) and address (the
// zero address while no vault is named).
func ValidateDomain(chainID uint64, vault string) error {
	if chainID == 0 {
		return errorsmod.Wrap(ErrInvalidParams, "evm_chain_id must be positive")
	}
	if _, err := (Params{VaultAddress: vault}).Vault(); err != nil {
		return errorsmod.Wrapf(ErrInvalidParams, "vault_address: %v", err)
	}
	return nil
}

// Vault is vault_address parsed; the zero address (no vault yet) included.
func (p Params) Vault() (common.Address, error) {
	s := p.VaultAddress
	if !strings.HasPrefix(s, "0x") || !common.IsHexAddress(s) {
		return common.Address{}, fmt.Errorf("%q is not a 0x-prefixed 20-byte address", s)
	}
	return common.HexToAddress(s), nil
}

// DutyChecksKeepUp is the bound on missed-duty checks per block: a block
// can queue max_credits_per_block deposit checks, a valset's and a root's,
// so fewer checks per block than that would let the queue grow without end.
func DutyChecksKeepUp(maxCredits, maxChecks uint32) error {
	if uint64(maxChecks) < uint64(maxCredits)+DutiesBesideCredits {
		return errorsmod.Wrapf(ErrInvalidParams, "max_duty_checks_per_block must be at least max_credits_per_block + %d (%d), got %d",
			DutiesBesideCredits, uint64(maxCredits)+DutiesBesideCredits, maxChecks)
	}
	return nil
}
