package policy

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/idlegpu/idlegpu/agent/config"
	offertypes "github.com/idlegpu/idlegpu/x/offer/types"
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
	// The chain's rule, published in the offer: what clearing matched runs.
	if !offertypes.ImagePrefixesAllow(cfg.ImagePrefixes, j.Image) {
		return fmt.Errorf("image %s matches no policy.image_prefixes", j.Image)
	}
	if j.Duration > cfg.MaxLease() {
		return fmt.Errorf("duration %s exceeds policy.max_lease_seconds (%s)", j.Duration, cfg.MaxLease())
	}
	return nil
}
