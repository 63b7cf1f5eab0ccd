package cli

import (
	"fmt"
	"strings"
	"time"

	"github.com/idlegpu/idlegpu/x/offer/types"
)

// ParseLanes reads a comma-separated lane list into a mask.
func ParseLanes(s string) (uint32, error) {
	return parseMask(s, "lane", map[string]uint32{
		"on-demand": uint32(types.LANE_ON_DEMAND), "preemptible": uint32(types.LANE_PREEMPTIBLE), "reserved": uint32(types.LANE_RESERVED),
	})
}

// ParseWorkloads reads a comma-separated workload list into a mask.
func ParseWorkloads(s string) (uint32, error) {
	return parseMask(s, "workload", map[string]uint32{
		"inference": uint32(types.WORKLOAD_INFERENCE), "training": uint32(types.WORKLOAD_TRAINING),
		"batch": uint32(types.WORKLOAD_BATCH), "render": uint32(types.WORKLOAD_RENDER),
	})
}

func parseMask(s, what string, names map[string]uint32) (uint32, error) {
	var mask uint32
	for _, part := range strings.Split(s, ",") {
		name := strings.ToLower(strings.TrimSpace(part))
		bit, ok := names[strings.ReplaceAll(name, "_", "-")]
		if !ok {
			return 0, fmt.Errorf("unknown %s %q", what, part)
		}
		mask |= bit
	}
	return mask, nil
}

// ParseWindows reads START/END pairs of RFC 3339 times, in order.
func ParseWindows(specs []string) ([]types.Window, error) {
	out := make([]types.Window, 0, len(specs))
	for _, spec := range specs {
		from, to, ok := strings.Cut(spec, "/")
		if !ok {
			return nil, fmt.Errorf("window %q: want START/END, e.g. 2026-12-01T00:00:00Z/2026-12-31T00:00:00Z", spec)
		}
		start, err := time.Parse(time.RFC3339, from)
		if err != nil {
			return nil, fmt.Errorf("window %q start: %w", spec, err)
		}
		end, err := time.Parse(time.RFC3339, to)
		if err != nil {
			return nil, fmt.Errorf("window %q end: %w", spec, err)
		}
		out = append(out, types.Window{Start: start.UTC(), End: end.UTC()})
	}
	return out, nil
}

// ParseDurationSeconds reads a Go duration ("90m", "72h", "0") as whole seconds.
func ParseDurationSeconds(s string) (uint64, error) {
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, err
	}
	if d < 0 || d%time.Second != 0 {
		return 0, fmt.Errorf("%s: want a non-negative whole number of seconds", s)
	}
	return uint64(d / time.Second), nil
}
