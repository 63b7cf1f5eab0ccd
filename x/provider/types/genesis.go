package types

import (
	"fmt"

	errorsmod "cosmossdk.io/errors"
	"cosmossdk.io/math"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/internal/check"
)

// DefaultGenesis returns the genesis state of a new chain.
func DefaultGenesis() *GenesisState {
	return &GenesisState{Params: DefaultParams(), NextUnbondingId: 1}
}

// Validate checks the genesis state without touching the store: every
// object well-formed, every reference resolved, every counter consistent.
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
	if gs.NextUnbondingId == 0 {
		return fmt.Errorf("next_unbonding_id must be at least 1 (ids start at 1)")
	}
	decode := func(s string) ([]byte, error) { return sdk.AccAddressFromBech32(s) }
	denom := gs.Params.StakeDenom()

	providers := make(map[string]*Provider, len(gs.Providers))
	for i := range gs.Providers {
		p := &gs.Providers[i]
		if _, err := decode(p.Operator); err != nil {
			return fmt.Errorf("providers[%d]: operator %q: %w", i, p.Operator, err)
		}
		if providers[p.Operator] != nil {
			return fmt.Errorf("provider %s listed twice", p.Operator)
		}
		providers[p.Operator] = p
		if err := ValidateDescription(p.Moniker, p.Region, p.Endpoint, p.TlsCertSha256); err != nil {
			return fmt.Errorf("provider %s: %w", p.Operator, err)
		}
		if err := ValidateAgents(p.Operator, p.Agents, gs.Params.MaxAgents, decode); err != nil {
			return fmt.Errorf("provider %s: %w", p.Operator, err)
		}
		for _, c := range []sdk.Coin{p.Stake, p.Unbonding} {
			if c.Denom != denom || c.Validate() != nil {
				return fmt.Errorf("provider %s: stake %s must be a valid %s amount", p.Operator, c, denom)
			}
		}
		if _, ok := ProviderStatus_name[int32(p.Status)]; !ok || p.Status == PROVIDER_STATUS_UNSPECIFIED {
			return fmt.Errorf("provider %s: invalid status %d", p.Operator, p.Status)
		}
	}

	gpus := make(map[string]uint32, len(providers))
	committed := make(map[string]uint32, len(providers))
	seen := make(map[string]bool, len(gs.Gpus))
	for _, g := range gs.Gpus {
		if seen[g.Uuid] {
			return fmt.Errorf("gpu %s listed twice: a UUID belongs to one provider", g.Uuid)
		}
		seen[g.Uuid] = true
		info := g.Info()
		if err := info.Validate(); err != nil {
			return err
		}
		if providers[g.Provider] == nil {
			return fmt.Errorf("gpu %s: provider %s does not exist", g.Uuid, g.Provider)
		}
		if g.Fingerprint != info.Fingerprint() {
			return fmt.Errorf("gpu %s: fingerprint %s does not match its inventory", g.Uuid, g.Fingerprint)
		}
		gpus[g.Provider]++
		if g.Committed {
			committed[g.Provider]++
		}
	}

	unbonding := make(map[string]math.Int, len(providers))
	ids := make(map[uint64]bool, len(gs.Unbondings))
	for _, u := range gs.Unbondings {
		if u.Id == 0 || u.Id >= gs.NextUnbondingId || ids[u.Id] {
			return fmt.Errorf("unbonding %d: ids must be unique and in [1, next_unbonding_id)", u.Id)
		}
		ids[u.Id] = true
		if providers[u.Provider] == nil {
			return fmt.Errorf("unbonding %d: provider %s does not exist", u.Id, u.Provider)
		}
		if u.Amount.Denom != denom || check.PositiveCoin("amount", u.Amount) != nil {
			return fmt.Errorf("unbonding %d: amount %s must be a positive %s amount", u.Id, u.Amount, denom)
		}
		sum, ok := unbonding[u.Provider]
		if !ok {
			sum = math.ZeroInt()
		}
		unbonding[u.Provider] = sum.Add(u.Amount.Amount)
	}

	histories := make(map[string]bool, len(gs.GpuHistories))
	for _, h := range gs.GpuHistories {
		if err := ValidateGPUUUID(h.Uuid); err != nil {
			return fmt.Errorf("gpu_histories: %w", err)
		}
		if histories[h.Uuid] {
			return fmt.Errorf("gpu history %s listed twice", h.Uuid)
		}
		histories[h.Uuid] = true
		if seen[h.Uuid] {
			return fmt.Errorf("gpu history %s: the GPU is registered (its record is spent when it is)", h.Uuid)
		}
		if providers[h.Provider] == nil {
			return fmt.Errorf("gpu history %s: provider %s does not exist", h.Uuid, h.Provider)
		}
		if err := check.Bps("reliability_bps", h.ReliabilityBps); err != nil {
			return fmt.Errorf("gpu history %s: %w", h.Uuid, err)
		}
	}

	reps := make(map[string]bool, len(gs.Reputations))
	for _, r := range gs.Reputations {
		if providers[r.Provider] == nil || reps[r.Provider] {
			return fmt.Errorf("reputation of %s: provider missing or listed twice", r.Provider)
		}
		reps[r.Provider] = true
		if err := r.Reputation.ValidateReliability(); err != nil {
			return fmt.Errorf("reputation of %s: %w", r.Provider, err)
		}
	}

	for _, p := range gs.Providers {
		if !reps[p.Operator] {
			return fmt.Errorf("provider %s has no reputation", p.Operator)
		}
		if p.GpuCount != gpus[p.Operator] || p.CommittedGpus != committed[p.Operator] {
			return fmt.Errorf("provider %s: gpu_count %d / committed_gpus %d, but genesis lists %d / %d",
				p.Operator, p.GpuCount, p.CommittedGpus, gpus[p.Operator], committed[p.Operator])
		}
		sum, ok := unbonding[p.Operator]
		if !ok {
			sum = math.ZeroInt()
		}
		if !p.Unbonding.Amount.Equal(sum) {
			return fmt.Errorf("provider %s: unbonding %s, but its entries sum to %s", p.Operator, p.Unbonding.Amount, sum)
		}
	}
	return nil
}
