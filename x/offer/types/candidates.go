package types

import (
	"context"
	"slices"

	errorsmod "cosmossdk.io/errors"

	sdk "github.com/cosmos/cosmos-sdk/types"

	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
)

// MaxWalkModels bounds the models one walk merges (one index iterator each).
const MaxWalkModels = 16

// MaxWalkRegions bounds the regions one walk accepts.
const MaxWalkRegions = 16

// CandidateQuery is a job's shape as the clearing walk filters on it.
type CandidateQuery struct {
	// Lane is the lane the job's tier buys on.
	Lane Lane
	// Models are acceptable models; empty = any (walks the any-model index).
	Models []string
	// MaxPrice caps the price per GPU-hour; its denom is the job's.
	MaxPrice sdk.Coin
	// MinMemoryMiB is the least GPU memory.
	MinMemoryMiB uint64
	// Regions are acceptable regions, matched at segment boundaries; empty = any.
	Regions []string
	// Workload is the job's workload.
	Workload Workload
	// ImageDigest is checked against each offer's allowlist.
	ImageDigest string
	// Image is the job's image reference, checked against each offer's image prefixes.
	Image string
	// MinCPUCoresPerGPU, MinMemoryMiBPerGPU and MinDiskGiBPerGPU are the
	// least host resources per GPU the job needs (0: none).
	MinCPUCoresPerGPU  uint32
	MinMemoryMiBPerGPU uint64
	MinDiskGiBPerGPU   uint64
	// MinEgressMbpsPerGPU is the least internet egress per GPU the job needs
	// (0: none, and it runs with none).
	MinEgressMbpsPerGPU uint32
	// IngressPort is the job's inbound service port (0: none); above 0 only
	// offers with an ingress domain fit.
	IngressPort uint32
	// GPUCount is how many GPUs the job needs.
	GPUCount uint32
	// AllowSplit accepts offers with at least one free GPU (micro-pools).
	AllowSplit bool
	// DurationSeconds is the job's length; a window must cover it from the block time.
	DurationSeconds uint64
	// MaxScan bounds the index entries visited, fits or not.
	MaxScan uint32
}

// Candidate is an OPEN offer that fits a job, with its lane price and free GPUs.
type Candidate struct {
	Offer    Offer
	Price    sdk.Coin
	FreeGPUs []string
}

// Validate checks the query's own fields.
func (q CandidateQuery) Validate() error {
	if !IsSingleLane(q.Lane) {
		return errorsmod.Wrapf(ErrInvalidQuery, "lane %s: must be one of ON_DEMAND, PREEMPTIBLE, RESERVED", q.Lane)
	}
	if len(q.Models) > MaxWalkModels {
		return errorsmod.Wrapf(ErrInvalidQuery, "%d models, at most %d", len(q.Models), MaxWalkModels)
	}
	for i, m := range q.Models {
		if m == "" || slices.Contains(q.Models[:i], m) {
			return errorsmod.Wrapf(ErrInvalidQuery, "models must be non-empty and distinct: %q", m)
		}
	}
	if err := sdk.ValidateDenom(q.MaxPrice.Denom); err != nil || q.MaxPrice.Amount.IsNil() || !q.MaxPrice.Amount.IsPositive() {
		return errorsmod.Wrapf(ErrInvalidQuery, "max price %s: must be a positive coin", q.MaxPrice)
	}
	if len(q.Regions) > MaxWalkRegions {
		return errorsmod.Wrapf(ErrInvalidQuery, "%d regions, at most %d", len(q.Regions), MaxWalkRegions)
	}
	for _, r := range q.Regions {
		if err := providertypes.ValidateRegion(r); err != nil {
			return errorsmod.Wrap(ErrInvalidQuery, err.Error())
		}
	}
	if !IsSingleWorkload(q.Workload) {
		return errorsmod.Wrapf(ErrInvalidQuery, "workload %s: must be one workload", q.Workload)
	}
	if q.GPUCount == 0 {
		return errorsmod.Wrap(ErrInvalidQuery, "gpu count must be positive")
	}
	if q.MaxScan == 0 {
		return errorsmod.Wrap(ErrInvalidQuery, "max scan must be positive")
	}
	return nil
}

// MaxWalkIterators bounds the index ranges one walk merges (models ×
// continents); a wider query walks the every-region keys and filters.
const MaxWalkIterators = 16

// WalkContinents returns the continent segments of the index keys the walk
// scans: the distinct continents of q.Regions, or "" (every region) when q
// takes any region or would need more than MaxWalkIterators ranges.
func (q CandidateQuery) WalkContinents() []string {
	if len(q.Regions) == 0 {
		return []string{""}
	}
	var cs []string
	for _, r := range q.Regions {
		if c := providertypes.RegionContinent(r); !slices.Contains(cs, c) {
			cs = append(cs, c)
		}
	}
	if max(len(q.Models), 1)*len(cs) > MaxWalkIterators {
		return []string{""}
	}
	return cs
}

// RegionAccepted reports whether region is in one of the accepted regions.
func (q CandidateQuery) RegionAccepted(region string) bool {
	if len(q.Regions) == 0 {
		return true
	}
	for _, r := range q.Regions {
		if providertypes.RegionMatches(r, region) {
			return true
		}
	}
	return false
}

// Walks is one block's candidate walks sharing their reads of the market
// index (x/offer/keeper/walks.go): x/auction's EndBlock clears every due
// job through one. Walk visits what Keeper.WalkCandidates would; Occupy
// leases GPUs as Keeper.OccupyForLease does and is the only x/offer write
// allowed while the Walks is open; Close ends it.
type Walks interface {
	Walk(ctx context.Context, q CandidateQuery, fn func(Candidate) (stop bool, err error)) (uint32, error)
	Occupy(ctx context.Context, offerID uint64, uuids []string) error
	Close()
}
