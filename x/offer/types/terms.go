package types

import (
	"strings"
	"time"

	errorsmod "cosmossdk.io/errors"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/internal/check"
)

const (
	// AllLanes is the mask of every lane.
	AllLanes = uint32(LANE_ON_DEMAND | LANE_PREEMPTIBLE | LANE_RESERVED)
	// AllWorkloads is the mask of every workload.
	AllWorkloads = uint32(WORKLOAD_INFERENCE | WORKLOAD_TRAINING | WORKLOAD_BATCH | WORKLOAD_RENDER)

	// MaxImageAllowlist bounds an offer's image allowlist (checked in clearing).
	MaxImageAllowlist = 16
	// ImageDigestPrefix starts every allowlist entry and image digest.
	ImageDigestPrefix = "sha256:"
	// MinImagePrefixHex is the fewest hex digits an allowlist entry may have:
	// fewer would match nearly every image.
	MinImagePrefixHex = 4
)

// Lanes lists the lanes in mask, lowest bit first.
func Lanes(mask uint32) []Lane {
	var out []Lane
	for _, l := range []Lane{LANE_ON_DEMAND, LANE_PREEMPTIBLE, LANE_RESERVED} {
		if mask&uint32(l) != 0 {
			out = append(out, l)
		}
	}
	return out
}

// IsSingleLane reports whether l is one known lane (not a mask or unspecified).
func IsSingleLane(l Lane) bool {
	return l == LANE_ON_DEMAND || l == LANE_PREEMPTIBLE || l == LANE_RESERVED
}

// IsSingleWorkload reports whether w is one known workload.
func IsSingleWorkload(w Workload) bool {
	return w == WORKLOAD_INFERENCE || w == WORKLOAD_TRAINING || w == WORKLOAD_BATCH || w == WORKLOAD_RENDER
}

// Price returns the offer's price per GPU-hour on lane: RESERVED and
// ON_DEMAND sell at price_on_demand, PREEMPTIBLE at price_preemptible.
// ok is false when the offer does not sell on lane.
func (t OfferTerms) Price(lane Lane) (sdk.Coin, bool) {
	if !IsSingleLane(lane) || t.Lanes&uint32(lane) == 0 {
		return sdk.Coin{}, false
	}
	p := t.PriceOnDemand
	if lane == LANE_PREEMPTIBLE {
		p = t.PricePreemptible
	}
	if p == nil {
		return sdk.Coin{}, false
	}
	return *p, true
}

// Validate checks the terms against the params: prices (in a payment
// denom), lanes, workloads, windows (sorted, disjoint, end after start, at
// most max_windows), max duration, allowlist, image prefixes and the
// resources and egress per GPU and the ingress. Whether windows lie in the past depends on
// the block time and is checked by ValidateWindowsAt.
func (t OfferTerms) Validate(params Params) error { return t.validate(params.MaxWindows, &params) }

// ValidateBasic is Validate without state: any denom, and at most
// MaxWindowsCap windows (no max_windows can allow more).
func (t OfferTerms) ValidateBasic() error { return t.validate(MaxWindowsCap, nil) }

// validate checks the terms with at most maxWindows windows and, unless
// market is nil, prices in its payment denoms.
func (t OfferTerms) validate(maxWindows uint32, market *Params) error {
	if t.Lanes == 0 || t.Lanes&^AllLanes != 0 {
		return errorsmod.Wrapf(ErrInvalidLanes, "lanes mask %#x: must be a non-empty set of ON_DEMAND(1), PREEMPTIBLE(2), RESERVED(4)", t.Lanes)
	}
	needOnDemand := t.Lanes&uint32(LANE_ON_DEMAND|LANE_RESERVED) != 0
	if err := validatePrice("price_on_demand", t.PriceOnDemand, needOnDemand, market); err != nil {
		return err
	}
	if err := validatePrice("price_preemptible", t.PricePreemptible, t.Lanes&uint32(LANE_PREEMPTIBLE) != 0, market); err != nil {
		return err
	}
	if t.Workloads == 0 || t.Workloads&^AllWorkloads != 0 {
		return errorsmod.Wrapf(ErrInvalidWorkloads, "workloads mask %#x: must be a non-empty set of INFERENCE(1), TRAINING(2), BATCH(4), RENDER(8)", t.Workloads)
	}
	if t.MaxDurationSeconds > check.MaxSeconds {
		return errorsmod.Wrapf(ErrInvalidDuration, "max_duration_seconds must be at most %d (100 years), got %d", check.MaxSeconds, t.MaxDurationSeconds)
	}
	if err := validateWindows(t.Windows, maxWindows); err != nil {
		return err
	}
	if err := validateAllowlist(t.ImageAllowlist); err != nil {
		return err
	}
	if err := validateImagePrefixes(t.ImagePrefixes); err != nil {
		return err
	}
	if err := t.validateResources(); err != nil {
		return err
	}
	if err := t.validateEgress(); err != nil {
		return err
	}
	return t.validateIngress()
}

func validatePrice(field string, p *sdk.Coin, required bool, market *Params) error {
	if p == nil {
		if required {
			return errorsmod.Wrapf(ErrInvalidPrice, "%s is required for the lanes offered", field)
		}
		return nil
	}
	if !required {
		return errorsmod.Wrapf(ErrInvalidPrice, "%s is set but no lane it prices is offered", field)
	}
	if err := sdk.ValidateDenom(p.Denom); err != nil {
		return errorsmod.Wrapf(ErrInvalidPrice, "%s: %s", field, err)
	}
	if p.Amount.IsNil() || !p.Amount.IsPositive() {
		return errorsmod.Wrapf(ErrInvalidPrice, "%s %s: must be positive", field, p)
	}
	if p.Amount.BigIntMut().BitLen() > maxPriceBytes*8-1 {
		return errorsmod.Wrapf(ErrInvalidPrice, "%s: amount too large", field)
	}
	if market != nil && !market.AcceptsDenom(p.Denom) {
		return errorsmod.Wrapf(ErrDenomNotAccepted, "%s %s: the market accepts %s", field, p, strings.Join(market.PaymentDenoms, ", "))
	}
	return nil
}

func validateWindows(ws []Window, maxWindows uint32) error {
	if uint64(len(ws)) > uint64(maxWindows) {
		return errorsmod.Wrapf(ErrInvalidWindows, "%d windows, at most %d", len(ws), maxWindows)
	}
	for i, w := range ws {
		if !w.End.After(w.Start) {
			return errorsmod.Wrapf(ErrInvalidWindows, "window %d: end %s is not after start %s", i, fmtTime(w.End), fmtTime(w.Start))
		}
		// Adjacent windows must be merged: a job across the seam would fit
		// neither, so they must be strictly apart.
		if i > 0 && !w.Start.After(ws[i-1].End) {
			return errorsmod.Wrapf(ErrInvalidWindows, "window %d starts at %s, not after window %d ends (%s): windows must be sorted and disjoint",
				i, fmtTime(w.Start), i-1, fmtTime(ws[i-1].End))
		}
	}
	return nil
}

// ValidateWindowsAt rejects a window that ended at or before now: a
// provider publishes only capacity it can still serve.
func (t OfferTerms) ValidateWindowsAt(now time.Time) error {
	for i, w := range t.Windows {
		if !w.End.After(now) {
			return errorsmod.Wrapf(ErrInvalidWindows, "window %d ended at %s, not after the block time %s", i, fmtTime(w.End), fmtTime(now))
		}
	}
	return nil
}

func validateAllowlist(list []string) error {
	if len(list) > MaxImageAllowlist {
		return errorsmod.Wrapf(ErrInvalidImageAllowlist, "%d entries, at most %d", len(list), MaxImageAllowlist)
	}
	for i, e := range list {
		hex, ok := strings.CutPrefix(e, ImageDigestPrefix)
		if !ok || len(hex) < MinImagePrefixHex || len(hex) > 64 || !IsLowerHex(hex) {
			return errorsmod.Wrapf(ErrInvalidImageAllowlist,
				"entry %d %q: must be %q followed by %d–64 lowercase hex digits", i, e, ImageDigestPrefix, MinImagePrefixHex)
		}
		for _, prev := range list[:i] {
			if prev == e {
				return errorsmod.Wrapf(ErrInvalidImageAllowlist, "entry %d %q is listed twice", i, e)
			}
		}
	}
	return nil
}

// IsLowerHex reports whether s is only lowercase hex digits.
func IsLowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// Covers reports whether the terms can serve a job of dur seconds starting
// at now: within max_duration, and inside one window (no windows = always).
func (t OfferTerms) Covers(now time.Time, durSeconds uint64) bool {
	if t.MaxDurationSeconds != 0 && durSeconds > t.MaxDurationSeconds {
		return false
	}
	if len(t.Windows) == 0 {
		return true
	}
	if durSeconds > check.MaxSeconds {
		return false
	}
	end := now.Add(check.Duration(durSeconds))
	for _, w := range t.Windows {
		if !w.Start.After(now) && !end.After(w.End) {
			return true
		}
	}
	return false
}

// AllowsImage reports whether digest starts with an allowlist entry (any
// image when the list is empty).
func (t OfferTerms) AllowsImage(digest string) bool {
	if len(t.ImageAllowlist) == 0 {
		return true
	}
	for _, p := range t.ImageAllowlist {
		if strings.HasPrefix(digest, p) {
			return true
		}
	}
	return false
}

// AcceptsWorkload reports whether w is among the terms' workloads.
func (t OfferTerms) AcceptsWorkload(w Workload) bool {
	return IsSingleWorkload(w) && t.Workloads&uint32(w) != 0
}

func fmtTime(t time.Time) string { return t.UTC().Format(time.RFC3339) }
