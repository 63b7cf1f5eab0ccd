package types

import (
	"fmt"

	errorsmod "cosmossdk.io/errors"

	sdk "github.com/cosmos/cosmos-sdk/types"
)

// DefaultGenesis returns the genesis state of a new chain.
func DefaultGenesis() *GenesisState {
	return &GenesisState{Params: DefaultParams(), NextJobId: 1, NextLeaseId: 1, NextBidSeq: 1}
}

// Validate checks the genesis state without touching the store: ids in
// order and below their sequences, every bid on an OPEN job, every lease on
// a MATCHED (or ended) job that lists it, live-lease counts consistent.
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
	if gs.NextJobId == 0 || gs.NextLeaseId == 0 || gs.NextBidSeq == 0 {
		return fmt.Errorf("next_job_id, next_lease_id and next_bid_seq start at 1")
	}
	seen := make(map[string]bool, len(gs.UsedNonces))
	for _, n := range gs.UsedNonces {
		if _, err := sdk.AccAddressFromBech32(n.Signer); err != nil {
			return fmt.Errorf("used nonce %d: signer: %w", n.Nonce, err)
		}
		key := fmt.Sprintf("%s/%d", n.Signer, n.Nonce)
		if seen[key] {
			return fmt.Errorf("used nonce %d of %s listed twice", n.Nonce, n.Signer)
		}
		seen[key] = true
	}
	jobs := make(map[uint64]Job, len(gs.Jobs))
	for i, j := range gs.Jobs {
		if j.Id == 0 || j.Id >= gs.NextJobId || (i > 0 && j.Id <= gs.Jobs[i-1].Id) {
			return fmt.Errorf("job %d: ids must be sorted, unique and below next_job_id", j.Id)
		}
		if _, err := sdk.AccAddressFromBech32(j.Renter); err != nil {
			return fmt.Errorf("job %d: renter: %w", j.Id, err)
		}
		if err := j.Spec.Validate(gs.Params); err != nil {
			return fmt.Errorf("job %d: %w", j.Id, err)
		}
		if _, ok := JobStatus_name[int32(j.Status)]; !ok || j.Status == JOB_STATUS_UNSPECIFIED {
			return fmt.Errorf("job %d: invalid status %d", j.Id, j.Status)
		}
		if j.Deposit.Denom != j.Spec.MaxPrice.Denom || j.Deposit.Validate() != nil || !j.Deposit.IsPositive() {
			return fmt.Errorf("job %d: deposit %s must be positive, in the job's denom", j.Id, j.Deposit)
		}
		if JobEnded(j) == j.PruneAt.IsZero() {
			return fmt.Errorf("job %d (%s, %d open leases): prune_at %s must be set exactly when the job has ended", j.Id, j.Status, j.OpenLeases, j.PruneAt)
		}
		jobs[j.Id] = j
	}
	for i, b := range gs.Bids {
		j, ok := jobs[b.JobId]
		if !ok || j.Status != JOB_STATUS_OPEN {
			return fmt.Errorf("bid of %s on job %d: job missing or not OPEN", b.Provider, b.JobId)
		}
		if _, err := sdk.AccAddressFromBech32(b.Provider); err != nil {
			return fmt.Errorf("bid on job %d: provider: %w", b.JobId, err)
		}
		if i > 0 && gs.Bids[i-1].JobId == b.JobId && gs.Bids[i-1].Provider == b.Provider {
			return fmt.Errorf("two bids of %s on job %d", b.Provider, b.JobId)
		}
		if err := ValidatePrice(b.Price); err != nil || b.Price.Denom != j.Spec.MaxPrice.Denom || b.Price.Amount.GT(j.Spec.MaxPrice.Amount) {
			return fmt.Errorf("bid of %s on job %d: price %s", b.Provider, b.JobId, b.Price)
		}
		if b.Seq == 0 || b.Seq >= gs.NextBidSeq {
			return fmt.Errorf("bid of %s on job %d: seq must be in [1, next_bid_seq)", b.Provider, b.JobId)
		}
	}
	bidCount := map[uint64]uint32{}
	for _, b := range gs.Bids {
		bidCount[b.JobId]++
	}
	for _, j := range gs.Jobs {
		if j.Bids != bidCount[j.Id] {
			return fmt.Errorf("job %d: bids is %d, genesis holds %d bids on it", j.Id, j.Bids, bidCount[j.Id])
		}
	}
	openLeases := map[uint64]uint32{}
	for i, l := range gs.Leases {
		if l.Id == 0 || l.Id >= gs.NextLeaseId || (i > 0 && l.Id <= gs.Leases[i-1].Id) {
			return fmt.Errorf("lease %d: ids must be sorted, unique and below next_lease_id", l.Id)
		}
		j, ok := jobs[l.JobId]
		if !ok || l.Renter != j.Renter {
			return fmt.Errorf("lease %d: job %d missing or of another renter", l.Id, l.JobId)
		}
		if _, ok := LeaseStatus_name[int32(l.Status)]; !ok || l.Status == LEASE_STATUS_UNSPECIFIED {
			return fmt.Errorf("lease %d: invalid status %d", l.Id, l.Status)
		}
		if l.Escrow.Denom != l.Price.Denom || l.Paid.Denom != l.Price.Denom || l.Paid.Amount.GT(l.Escrow.Amount) {
			return fmt.Errorf("lease %d: paid %s must be within escrow %s, in the price's denom", l.Id, l.Paid, l.Escrow)
		}
		if l.Status == LEASE_STATUS_PENDING || l.Status == LEASE_STATUS_ACTIVE {
			openLeases[l.JobId]++
		}
	}
	for _, j := range gs.Jobs {
		if j.OpenLeases != openLeases[j.Id] {
			return fmt.Errorf("job %d: open_leases %d, its live leases number %d", j.Id, j.OpenLeases, openLeases[j.Id])
		}
	}
	return nil
}
