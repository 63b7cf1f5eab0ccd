package types

import (
	"math"
	"slices"
	"strings"

	errorsmod "cosmossdk.io/errors"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/internal/check"
	offertypes "github.com/idlegpu/idlegpu/x/offer/types"
	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
)

const (
	// MaxImageLength bounds the image reference.
	MaxImageLength = 256
	// MaxBidWindowBlocks bounds how long a job takes bids (about a day at 1 s blocks).
	MaxBidWindowBlocks = 100_000
	// MaxReasonLength bounds the reason of a close or preemption.
	MaxReasonLength = 256
)

// Lane is the x/offer lane a tier buys on.
func (t Tier) Lane() offertypes.Lane {
	switch t {
	case TIER_GOLD:
		return offertypes.LANE_RESERVED
	case TIER_SILVER:
		return offertypes.LANE_ON_DEMAND
	case TIER_BRONZE:
		return offertypes.LANE_PREEMPTIBLE
	default:
		return offertypes.LANE_UNSPECIFIED
	}
}

// Validate checks a job spec against the params; whether the market takes
// its denom is the keeper's to check (x/offer holds payment_denoms).
func (s JobSpec) Validate(params Params) error {
	return s.validate(params.MaxGpusPerJob, params.MaxJobDurationSeconds)
}

// ValidateBasic is Validate without state: GPUs and duration bounded by
// the most any params may allow (check.MaxGPUsPerLease, check.MaxSeconds).
func (s JobSpec) ValidateBasic() error { return s.validate(check.MaxGPUsPerLease, check.MaxSeconds) }

// validate checks the spec with at most maxGPUs GPUs and maxSeconds of run time.
func (s JobSpec) validate(maxGPUs uint32, maxSeconds uint64) error {
	if s.Image == "" || len(s.Image) > MaxImageLength || !printable(s.Image) {
		return errorsmod.Wrapf(ErrInvalidImage, "image must be 1..%d printable bytes", MaxImageLength)
	}
	if !isDigest(s.ImageDigest) {
		return errorsmod.Wrapf(ErrInvalidImage, "image_digest %q: want sha256: and 64 lowercase hex digits", s.ImageDigest)
	}
	if err := validateImagePin(s.Image, s.ImageDigest); err != nil {
		return err
	}
	if len(s.ManifestHash) != 64 || !offertypes.IsLowerHex(s.ManifestHash) {
		return errorsmod.Wrapf(ErrInvalidManifestHash, "%q: want the manifest's sha256 as 64 lowercase hex digits", s.ManifestHash)
	}
	if !offertypes.IsSingleWorkload(s.Workload) {
		return errorsmod.Wrapf(ErrInvalidWorkload, "%s", s.Workload)
	}
	if s.GpuCount == 0 || s.GpuCount > maxGPUs {
		return errorsmod.Wrapf(ErrInvalidGPUCount, "%d GPUs: want 1..%d", s.GpuCount, maxGPUs)
	}
	if len(s.Models) > offertypes.MaxWalkModels {
		return errorsmod.Wrapf(ErrInvalidModels, "%d models, at most %d", len(s.Models), offertypes.MaxWalkModels)
	}
	for i, m := range s.Models {
		if m == "" || len(m) > providertypes.MaxModelLength || !printable(m) || slices.Contains(s.Models[:i], m) {
			return errorsmod.Wrapf(ErrInvalidModels, "model %q: must be 1..%d printable bytes, listed once", m, providertypes.MaxModelLength)
		}
	}
	if len(s.Regions) > offertypes.MaxWalkRegions {
		return errorsmod.Wrapf(ErrInvalidRegions, "%d regions, at most %d", len(s.Regions), offertypes.MaxWalkRegions)
	}
	for i, r := range s.Regions {
		if err := providertypes.ValidateRegion(r); err != nil || slices.Contains(s.Regions[:i], r) {
			return errorsmod.Wrapf(ErrInvalidRegions, "region %q: want continent[-country[-site]], listed once", r)
		}
	}
	if s.Tier.Lane() == offertypes.LANE_UNSPECIFIED {
		return errorsmod.Wrapf(ErrInvalidTier, "%s", s.Tier)
	}
	if s.Preemptible != (s.Tier == TIER_BRONZE) {
		return errorsmod.Wrapf(ErrInvalidTier, "preemptible=%t with %s: BRONZE jobs, and only they, are preemptible", s.Preemptible, s.Tier)
	}
	if s.DurationSeconds == 0 || s.DurationSeconds > maxSeconds {
		return errorsmod.Wrapf(ErrInvalidDuration, "%d s: want 1..%d", s.DurationSeconds, maxSeconds)
	}
	if err := ValidatePrice(s.MaxPrice); err != nil {
		return err
	}
	if s.MinCpuCoresPerGpu > offertypes.MaxCPUCoresPerGPU || s.MinHostMemoryMibPerGpu > offertypes.MaxMemoryMiBPerGPU ||
		s.MinDiskGibPerGpu > offertypes.MaxDiskGiBPerGPU {
		return errorsmod.Wrapf(ErrInvalidResources, "min per GPU %d cores, %d MiB, %d GiB: at most %d, %d, %d (no offer could give more)",
			s.MinCpuCoresPerGpu, s.MinHostMemoryMibPerGpu, s.MinDiskGibPerGpu,
			offertypes.MaxCPUCoresPerGPU, offertypes.MaxMemoryMiBPerGPU, offertypes.MaxDiskGiBPerGPU)
	}
	if s.MinEgressMbpsPerGpu > offertypes.MaxEgressMbpsPerGPU {
		return errorsmod.Wrapf(ErrInvalidResources, "min_egress_mbps_per_gpu %d: at most %d (no offer could give more)",
			s.MinEgressMbpsPerGpu, offertypes.MaxEgressMbpsPerGPU)
	}
	if s.IngressPort > math.MaxUint16 {
		return errorsmod.Wrapf(ErrInvalidIngressPort, "ingress_port %d: a TCP port is at most %d", s.IngressPort, math.MaxUint16)
	}
	if s.BidWindowBlocks > MaxBidWindowBlocks {
		return errorsmod.Wrapf(ErrInvalidBidWindow, "%d blocks, at most %d", s.BidWindowBlocks, MaxBidWindowBlocks)
	}
	return nil
}

// ValidatePrice requires a positive coin whose amount fits MaxPriceBits.
func ValidatePrice(p sdk.Coin) error {
	if err := sdk.ValidateDenom(p.Denom); err != nil {
		return errorsmod.Wrapf(ErrInvalidPrice, "%s: %s", p, err)
	}
	if p.Amount.IsNil() || !p.Amount.IsPositive() {
		return errorsmod.Wrapf(ErrInvalidPrice, "%s: must be positive", p)
	}
	if p.Amount.BigIntMut().BitLen() > MaxPriceBits {
		return errorsmod.Wrapf(ErrInvalidPrice, "%s: at most 2^%d-1 base units", p, MaxPriceBits)
	}
	return nil
}

// ValidateReason checks a close or preemption reason.
func ValidateReason(r string) error {
	if len(r) > MaxReasonLength || !printable(r) {
		return errorsmod.Wrapf(ErrInvalidReason, "at most %d printable bytes", MaxReasonLength)
	}
	return nil
}

// validateImagePin requires an image reference that pins a digest to pin
// image_digest: offers admit a job by image_digest (x/offer's allowlist) but
// the agent pulls image, so two digests would run an image the provider
// never agreed to. In a reference ([host[:port]/]path[:tag][@digest]) no
// name, port or tag may hold an '@', so the digest is all after the first
// one; a tag beside it is ignored by Docker. The comparison is exact: an
// upper-case, sha512 or second digest is not image_digest.
func validateImagePin(image, digest string) error {
	name, pinned, ok := strings.Cut(image, "@")
	switch {
	case !ok:
		return nil
	case name == "":
		return errorsmod.Wrapf(ErrInvalidImage, "image %q has a digest but no name", image)
	case pinned != digest:
		return errorsmod.Wrapf(ErrInvalidImage, "image %q is pinned to %q, not to image_digest %q", image, pinned, digest)
	}
	return nil
}

func isDigest(s string) bool {
	hex, ok := strings.CutPrefix(s, offertypes.ImageDigestPrefix)
	return ok && len(hex) == 64 && offertypes.IsLowerHex(hex)
}

func printable(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// CandidateQuery is x/offer's clearing walk for a job of this spec: the
// tier's lane and every filter, at most max_candidates_per_job entries.
func (s JobSpec) CandidateQuery(params Params) offertypes.CandidateQuery {
	return offertypes.CandidateQuery{
		Lane: s.Tier.Lane(), Models: s.Models, MaxPrice: s.MaxPrice, MinMemoryMiB: s.MinMemoryMib,
		Regions: s.Regions, Workload: s.Workload, ImageDigest: s.ImageDigest, GPUCount: s.GpuCount,
		AllowSplit: s.AllowSplit, DurationSeconds: s.DurationSeconds, MaxScan: params.MaxCandidatesPerJob,
		Image: s.Image, MinCPUCoresPerGPU: s.MinCpuCoresPerGpu, MinMemoryMiBPerGPU: s.MinHostMemoryMibPerGpu,
		MinDiskGiBPerGPU: s.MinDiskGibPerGpu, MinEgressMbpsPerGPU: s.MinEgressMbpsPerGpu,
		IngressPort: s.IngressPort,
	}
}
