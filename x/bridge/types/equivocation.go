package types

import (
	"fmt"

	errorsmod "cosmossdk.io/errors"

	sdk "github.com/cosmos/cosmos-sdk/types"
)

// validateEquivocationRecords checks the genesis records that keep
// equivocation provable and punished once: every EVM key once, with its
// validator; every equivocation once per (validator, kind, id), of a known
// kind.
func validateEquivocationRecords(keys []SignerKey, eqs []Equivocation) error {
	seen := make(map[string]bool, len(keys)+len(eqs))
	for _, k := range keys {
		if _, err := sdk.ValAddressFromBech32(k.Validator); err != nil {
			return errorsmod.Wrapf(ErrInvalidGenesis, "signer key validator %q: %v", k.Validator, err)
		}
		evm, err := ParseEvmAddress(k.EvmAddress)
		if err != nil {
			return errorsmod.Wrapf(ErrInvalidGenesis, "signer key of %s: %s", k.Validator, err)
		}
		if seen["k"+evm.Hex()] {
			return errorsmod.Wrapf(ErrInvalidGenesis, "signer key %s listed twice", evm.Hex())
		}
		seen["k"+evm.Hex()] = true
	}
	for _, e := range eqs {
		if _, err := sdk.ValAddressFromBech32(e.Validator); err != nil {
			return errorsmod.Wrapf(ErrInvalidGenesis, "equivocation validator %q: %v", e.Validator, err)
		}
		if e.Kind != EquivocationDeposit && e.Kind != EquivocationRoot && e.Kind != EquivocationValset {
			return errorsmod.Wrapf(ErrInvalidGenesis, "equivocation of %s: unknown kind %d", e.Validator, e.Kind)
		}
		if e.Id == 0 {
			return errorsmod.Wrapf(ErrInvalidGenesis, "equivocation of %s: id starts at 1", e.Validator)
		}
		key := fmt.Sprintf("e%s/%d/%d", e.Validator, e.Kind, e.Id)
		if seen[key] {
			return errorsmod.Wrapf(ErrInvalidGenesis, "equivocation of %s (kind %d, id %d) listed twice", e.Validator, e.Kind, e.Id)
		}
		seen[key] = true
	}
	return nil
}
