package types

import (
	"encoding/hex"
	"strings"

	errorsmod "cosmossdk.io/errors"
	"cosmossdk.io/math"

	sdk "github.com/cosmos/cosmos-sdk/types"
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
)

// DefaultParams returns the default x/bridge parameters.
func DefaultParams() Params {
	return Params{
		Denom:                DefaultDenom,
		VaultId:              DefaultVaultID,
		EvmConfirmations:     DefaultEvmConfirmations,
		PayoutEpochBlocks:    DefaultPayoutEpochBlocks,
		ValsetChangeBps:      DefaultValsetChangeBps,
		SigningWindowBlocks:  DefaultSigningWindowBlocks,
		MaxCreditsPerBlock:   DefaultMaxCreditsPerBlock,
		MaxRecipients:        DefaultMaxRecipients,
		RootsKept:            DefaultRootsKept,
		MinWithdrawal:        math.NewInt(1_000_000), // 1 USDC: a leaf costs every root a hash
		MaxPrunesPerBlock:    DefaultMaxPrunesPerBlock,
		EquivocationSlashBps: DefaultEquivocationSlashBps,
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
	return nil
}
