package types

import (
	"fmt"
	"slices"
	"strings"

	errorsmod "cosmossdk.io/errors"

	sdk "github.com/cosmos/cosmos-sdk/types"

	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
)

// DefaultGenesis returns the genesis state of a new chain.
func DefaultGenesis() *GenesisState {
	return &GenesisState{Params: DefaultParams(), NextOfferId: 1}
}

// Validate checks the genesis state without touching the store: every offer
// well-formed, every GPU in at most one offer, every provider's stats equal
// to what its offers add up to.
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
	if gs.NextOfferId == 0 {
		return fmt.Errorf("next_offer_id must be at least 1 (ids start at 1)")
	}
	gpuOffer := map[string]uint64{}
	for i, o := range gs.Offers {
		if i > 0 && o.Id <= gs.Offers[i-1].Id {
			return fmt.Errorf("offers must be sorted by id without repeats: %d after %d", o.Id, gs.Offers[i-1].Id)
		}
		if o.Id == 0 || o.Id >= gs.NextOfferId {
			return fmt.Errorf("offer %d: id must be in [1, next_offer_id=%d)", o.Id, gs.NextOfferId)
		}
		if err := o.validate(gs.Params); err != nil {
			return fmt.Errorf("offer %d: %w", o.Id, err)
		}
		for _, u := range o.GpuUuids {
			if prev, ok := gpuOffer[u]; ok {
				return fmt.Errorf("gpu %s is in offers %d and %d", u, prev, o.Id)
			}
			gpuOffer[u] = o.Id
		}
	}
	want, order := CountsByProvider(gs.Offers)
	for i, st := range gs.ProviderStats {
		if _, err := sdk.AccAddressFromBech32(st.Provider); err != nil {
			return fmt.Errorf("provider_stats[%d]: provider %q: %w", i, st.Provider, err)
		}
		if i > 0 && st.Provider <= gs.ProviderStats[i-1].Provider {
			return fmt.Errorf("provider_stats must be sorted by provider without repeats: %s after %s", st.Provider, gs.ProviderStats[i-1].Provider)
		}
		if err := st.CheckAgainst(want[st.Provider]); err != nil {
			return err
		}
		if st.UpdatedAt.Before(st.Since) {
			return fmt.Errorf("provider_stats %s: updated_at before since", st.Provider)
		}
		delete(want, st.Provider)
	}
	for _, p := range order {
		if want[p] != nil {
			return fmt.Errorf("provider %s has offers but no provider_stats", p)
		}
	}
	return nil
}

// validate checks one offer's own fields (not the windows' relation to the
// block time, which genesis does not know).
func (o Offer) validate(params Params) error {
	if _, err := sdk.AccAddressFromBech32(o.Provider); err != nil {
		return fmt.Errorf("provider %q: %w", o.Provider, err)
	}
	if err := ValidateGPUList(o.GpuUuids, params.MaxGpusPerOffer); err != nil {
		return err
	}
	if o.Model == "" || len(o.Model) > providertypes.MaxModelLength {
		return fmt.Errorf("model %q: must be 1..%d bytes", o.Model, providertypes.MaxModelLength)
	}
	if o.MemoryMib == 0 {
		return fmt.Errorf("memory_mib must be positive")
	}
	if err := providertypes.ValidateRegion(o.Region); err != nil {
		return err
	}
	if err := o.Terms.Validate(params); err != nil {
		return err
	}
	switch o.Status {
	case OFFER_STATUS_OPEN, OFFER_STATUS_PAUSED:
	case OFFER_STATUS_CLOSED:
		// A closed offer lives on only for its leased GPUs.
		if len(o.OccupiedGpuUuids) == 0 || len(o.OccupiedGpuUuids) != len(o.GpuUuids) {
			return fmt.Errorf("closed offer must hold only leased GPUs")
		}
	default:
		return fmt.Errorf("invalid status %d", o.Status)
	}
	// Leased GPUs are a subsequence of gpu_uuids (same order, no repeats).
	j := 0
	for _, u := range o.GpuUuids {
		if j < len(o.OccupiedGpuUuids) && o.OccupiedGpuUuids[j] == u {
			j++
		}
	}
	if j != len(o.OccupiedGpuUuids) {
		return fmt.Errorf("leased_gpu_uuids must be offer GPUs in gpu_uuids order")
	}
	if o.UpdatedAt.Before(o.CreatedAt) {
		return fmt.Errorf("updated_at before created_at")
	}
	return nil
}

// ValidateGPUList checks an offer's GPU list: 1..max well-formed UUIDs, each once.
func ValidateGPUList(uuids []string, max uint32) error {
	if len(uuids) == 0 {
		return errorsmod.Wrap(ErrNoGPUs, "an offer needs at least one GPU")
	}
	if uint64(len(uuids)) > uint64(max) {
		return errorsmod.Wrapf(ErrTooManyGPUs, "%d GPUs, at most %d", len(uuids), max)
	}
	seen := make(map[string]bool, len(uuids))
	for _, u := range uuids {
		if err := providertypes.ValidateGPUUUID(u); err != nil {
			return err
		}
		if seen[u] {
			return errorsmod.Wrapf(ErrDuplicateGPU, "%s", u)
		}
		seen[u] = true
	}
	return nil
}

// SortStats orders stats by provider bech32 string, the order genesis requires.
func SortStats(stats []ProviderStats) {
	slices.SortFunc(stats, func(a, b ProviderStats) int { return strings.Compare(a.Provider, b.Provider) })
}
