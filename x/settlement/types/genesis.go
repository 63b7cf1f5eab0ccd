package types

import (
	"fmt"

	errorsmod "cosmossdk.io/errors"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/internal/check"
)

// DefaultGenesis returns the genesis state of a new chain.
func DefaultGenesis() *GenesisState {
	return &GenesisState{Params: DefaultParams(), NextAuditId: 1}
}

// Validate checks the genesis state without touching the store: params,
// headers sorted by height with 32-byte hashes, one progress per lease, proofs
// unique and well formed, rewards positive and sorted.
func (gs GenesisState) Validate() error {
	if err := gs.validate(); err != nil {
		return errorsmod.Wrap(ErrInvalidGenesis, err.Error())
	}
	return nil
}

func (gs GenesisState) validate() error {
	if err := gs.Params.Validate(); err != nil {
		return err
	}
	for i, h := range gs.Headers {
		if h.Height <= 0 || len(h.Hash) != HashSize || (i > 0 && h.Height <= gs.Headers[i-1].Height) {
			return fmt.Errorf("header %d: heights must be positive and ascending, hashes %d bytes", h.Height, HashSize)
		}
	}
	for i, p := range gs.Progress {
		if p.LeaseId == 0 || p.EpochSeconds == 0 || (i > 0 && p.LeaseId <= gs.Progress[i-1].LeaseId) {
			return fmt.Errorf("progress of lease %d: ids ascending, epoch length positive", p.LeaseId)
		}
		if p.ProvenEpochs > p.NextEpoch {
			return fmt.Errorf("progress of lease %d: %d epochs proven of %d settled", p.LeaseId, p.ProvenEpochs, p.NextEpoch)
		}
	}
	for i, r := range gs.Proofs {
		if err := r.Proof.ValidateBasic(); err != nil {
			return fmt.Errorf("proof %d: %w", i, err)
		}
		if i > 0 {
			prev := gs.Proofs[i-1].Proof
			if r.Proof.LeaseId < prev.LeaseId || (r.Proof.LeaseId == prev.LeaseId && r.Proof.Epoch <= prev.Epoch) {
				return fmt.Errorf("proof of lease %d epoch %d: sorted by (lease, epoch), unique", r.Proof.LeaseId, r.Proof.Epoch)
			}
		}
		if _, err := sdk.AccAddressFromBech32(r.Provider); err != nil {
			return fmt.Errorf("proof of lease %d: provider: %w", r.Proof.LeaseId, err)
		}
		if r.Paid.Validate() != nil || r.Fee.Validate() != nil || r.Fee.Denom != r.Paid.Denom || r.Fee.Amount.GT(r.Paid.Amount) {
			return fmt.Errorf("proof of lease %d epoch %d: fee %s must be within paid %s", r.Proof.LeaseId, r.Proof.Epoch, r.Fee, r.Paid)
		}
	}
	if err := gs.validateAudits(); err != nil {
		return err
	}
	for i, r := range gs.Rewards {
		if _, err := sdk.AccAddressFromBech32(r.Provider); err != nil {
			return fmt.Errorf("rewards %d: provider: %w", i, err)
		}
		if i > 0 && r.Provider <= gs.Rewards[i-1].Provider {
			return fmt.Errorf("rewards of %s: one entry per provider, sorted", r.Provider)
		}
		if err := r.Rewards.Validate(); err != nil || r.Rewards.IsZero() {
			return fmt.Errorf("rewards of %s: must be positive, sorted coins", r.Provider)
		}
	}
	return nil
}

// validateAudits requires audits sorted by id below next_audit_id, well
// formed, with at most one live audit per GPU, cooldowns and verifications
// sorted by GPU.
func (gs GenesisState) validateAudits() error {
	live := map[string]uint64{}
	for i, a := range gs.Audits {
		if a.Id == 0 || a.Id >= max(gs.NextAuditId, 1) || (i > 0 && a.Id <= gs.Audits[i-1].Id) {
			return fmt.Errorf("audit %d: ids ascending, unique, below next_audit_id %d", a.Id, gs.NextAuditId)
		}
		if err := a.validate(); err != nil {
			return fmt.Errorf("audit %d: %w", a.Id, err)
		}
		if a.IsLive() {
			if prev, ok := live[a.GpuUuid]; ok {
				return fmt.Errorf("GPU %s has live audits %d and %d", a.GpuUuid, prev, a.Id)
			}
			live[a.GpuUuid] = a.Id
		} else if a.ReservedOfferId != 0 || a.PruneAt.IsZero() {
			return fmt.Errorf("audit %d: a verdict holds no GPU and has a pruning time", a.Id)
		}
	}
	for i, v := range gs.Verifications {
		if v.GpuUuid == "" || (i > 0 && v.GpuUuid <= gs.Verifications[i-1].GpuUuid) {
			return fmt.Errorf("verification %q: GPUs sorted and unique", v.GpuUuid)
		}
	}
	for i, r := range gs.FeeRemainders {
		if err := validateFeeRemainder(r); err != nil {
			return errorsmod.Wrapf(ErrInvalidGenesis, "fee_remainders[%d]: %v", i, err)
		}
		if i > 0 {
			prev := gs.FeeRemainders[i-1]
			if prev.Provider > r.Provider || (prev.Provider == r.Provider && prev.Denom >= r.Denom) {
				return errorsmod.Wrapf(ErrInvalidGenesis, "fee_remainders[%d]: sorted by provider and denom, unique", i)
			}
		}
	}
	for i, c := range gs.Cooldowns {
		if c.GpuUuid == "" || (i > 0 && c.GpuUuid <= gs.Cooldowns[i-1].GpuUuid) {
			return fmt.Errorf("cooldown %q: GPUs sorted and unique", c.GpuUuid)
		}
	}
	return nil
}

// validateFeeRemainder checks one carried fee fraction: a named provider, a
// valid denom, and a fraction below one unit (zero is not stored).
func validateFeeRemainder(r FeeRemainder) error {
	if _, err := sdk.AccAddressFromBech32(r.Provider); err != nil {
		return fmt.Errorf("provider: %w", err)
	}
	if err := sdk.ValidateDenom(r.Denom); err != nil {
		return err
	}
	if r.Remainder == 0 || r.Remainder >= check.MaxBps {
		return fmt.Errorf("remainder must be in 1..%d, got %d", check.MaxBps-1, r.Remainder)
	}
	return nil
}
