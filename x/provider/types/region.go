package types

import (
	"slices"
	"strings"

	errorsmod "cosmossdk.io/errors"
)

// MaxRegionLength bounds a region: "xx-yy-" plus an 8-character site.
const MaxRegionLength = 14

// Continents are the first segment of a region.
var Continents = []string{"af", "an", "as", "eu", "na", "oc", "sa"}

// ValidateRegion checks a region of the form continent[-country[-site]]
// (docs/design.md#determinism): continent ∈ Continents, country an assigned ISO 3166-1
// alpha-2 code, site 2–8 lower-case letters or digits; all lower-case.
// Examples: "eu", "eu-de", "eu-de-fra1". "eu-west" is not a region: west is
// no country code. Whether the country lies on the continent is the
// provider's declaration and is not checked.
func ValidateRegion(region string) error {
	if region == "" || len(region) > MaxRegionLength {
		return errorsmod.Wrapf(ErrInvalidRegion, "%q: must be 2..%d bytes", region, MaxRegionLength)
	}
	parts := strings.Split(region, "-")
	if len(parts) > 3 {
		return errorsmod.Wrapf(ErrInvalidRegion, "%q: at most continent-country-site", region)
	}
	if !slices.Contains(Continents, parts[0]) {
		return errorsmod.Wrapf(ErrInvalidRegion, "%q: continent %q is not one of %s", region, parts[0], strings.Join(Continents, ", "))
	}
	if len(parts) > 1 && !isCountryCode(parts[1]) {
		return errorsmod.Wrapf(ErrInvalidRegion, "%q: %q is not an ISO 3166-1 alpha-2 country code (lower-case)", region, parts[1])
	}
	if len(parts) > 2 && !isSite(parts[2]) {
		return errorsmod.Wrapf(ErrInvalidRegion, "%q: site %q must be 2-8 lower-case letters or digits", region, parts[2])
	}
	return nil
}

// RegionContinent returns a region's first segment: "eu" for "eu-de-fra1".
func RegionContinent(region string) string {
	c, _, _ := strings.Cut(region, "-")
	return c
}

// RegionMatches reports whether region lies within want at a segment
// boundary: "eu" matches "eu", "eu-de" and "eu-de-fra1", never "europe".
func RegionMatches(want, region string) bool {
	return region == want || strings.HasPrefix(region, want+"-")
}

func isSite(s string) bool {
	if len(s) < 2 || len(s) > 8 {
		return false
	}
	for _, r := range s {
		if (r < 'a' || r > 'z') && (r < '0' || r > '9') {
			return false
		}
	}
	return true
}
