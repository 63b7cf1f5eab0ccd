package types

import (
	"fmt"

	"github.com/idlegpu/idlegpu/contracts/payout"
)

// VaultValset is the vault's view of a chain valset: its members' EVM
// addresses and normalised powers in the chain's (sorted) order, checked
// against the vault's rules (payout.Valset.Validate). The chain signs, and
// the bridge process relays, exactly this.
func (v Valset) VaultValset() (payout.Valset, error) {
	out := payout.Valset{Nonce: v.Nonce}
	for _, m := range v.Members {
		a, err := ParseEvmAddress(m.EvmAddress)
		if err != nil {
			return payout.Valset{}, fmt.Errorf("valset %d: %w", v.Nonce, err)
		}
		out.Validators = append(out.Validators, a)
		out.Powers = append(out.Powers, m.Power)
	}
	if err := out.Validate(); err != nil {
		return payout.Valset{}, fmt.Errorf("valset %d: %w", v.Nonce, err)
	}
	return out, nil
}
