package policy

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/idlegpu/idlegpu/agent/config"
)

// Job is what the policy judges of a job before bidding or starting it.
type Job struct {
	Workload string
	Image    string
	Model    string
	Duration time.Duration
}

// Accepts says whether the provider takes such a job, and why not.
func Accepts(cfg config.Policy, j Job) error {
	if !slices.Contains(cfg.Workloads, j.Workload) {
		return fmt.Errorf("workload %s is not accepted (policy.workloads: %s)", j.Workload, strings.Join(cfg.Workloads, ", "))
	}
	if len(cfg.ImagePrefixes) > 0 && !slices.ContainsFunc(cfg.ImagePrefixes, func(p string) bool { return strings.HasPrefix(j.Image, p) }) {
		return fmt.Errorf("image %s matches no policy.image_prefixes", j.Image)
	}
	if j.Duration > cfg.MaxLease() {
		return fmt.Errorf("duration %s exceeds policy.max_lease_seconds (%s)", j.Duration, cfg.MaxLease())
	}
	return nil
}
