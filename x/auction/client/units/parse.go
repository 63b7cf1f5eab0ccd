// Package units reads and writes the market's amounts and sizes as people
// type and read them: prices in a denom's display unit (from the chain's
// denom metadata), memory, durations, tiers and pinned images. The CLI and
// the web app both use it, so a page shows what the CLI accepts.
package units

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/idlegpu/idlegpu/x/auction/types"
)

// ParseMemoryMiB reads a memory size: MiB by default, or with a unit MiB,
// GiB (binary) or MB, GB (decimal). An "80GB" card reports about 81559 MiB,
// so "80GB" (76294 MiB) takes it and "80GiB" (81920 MiB) does not.
func ParseMemoryMiB(s string) (uint64, error) {
	s = strings.TrimSpace(s)
	units := []struct {
		suffix string
		bytes  float64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"GB", 1e9}, {"MB", 1e6}}
	for _, u := range units {
		if num, ok := strings.CutSuffix(s, u.suffix); ok {
			n, err := strconv.ParseUint(strings.TrimSpace(num), 10, 32)
			if err != nil {
				return 0, fmt.Errorf("memory %q: %w", s, err)
			}
			// Round up: a minimum must not be weakened by rounding.
			bytes := uint64(n) * uint64(u.bytes)
			return (bytes + (1<<20 - 1)) >> 20, nil
		}
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("memory %q: want a number of MiB or a size such as 80GB or 79GiB", s)
	}
	return n, nil
}

// ParseImage splits "repo@sha256:<64 hex>" into the reference and its digest.
func ParseImage(s string) (image, digest string, err error) {
	_, d, ok := strings.Cut(s, "@")
	if !ok || !strings.HasPrefix(d, "sha256:") || len(d) != len("sha256:")+64 {
		return "", "", fmt.Errorf("image %q: pin it by digest, e.g. ghcr.io/acme/train@sha256:<64 hex digits>", s)
	}
	return s, d, nil
}

// ParseTier reads gold, silver or bronze.
func ParseTier(s string) (types.Tier, error) {
	t, ok := types.Tier_value["TIER_"+strings.ToUpper(strings.TrimSpace(s))]
	if !ok || t == 0 {
		return 0, fmt.Errorf("tier %q: want gold, silver or bronze", s)
	}
	return types.Tier(t), nil
}

// ParseDurationSeconds reads a Go duration ("90m", "2h") as whole seconds.
func ParseDurationSeconds(s string) (uint64, error) {
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, err
	}
	if d <= 0 || d%time.Second != 0 {
		return 0, fmt.Errorf("%s: want a positive whole number of seconds", s)
	}
	return uint64(d / time.Second), nil
}
