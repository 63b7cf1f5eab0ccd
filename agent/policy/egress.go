package policy

import (
	"fmt"

	offertypes "github.com/idlegpu/idlegpu/x/offer/types"
)

// AcceptsEgress refuses a job that needs more internet egress per GPU than
// the agent gives, by the rule clearing applies (offertypes.EgressFits): a
// lease matched before the provider lowered its egress is refused, not run
// short of what the renter asked for.
func AcceptsEgress(offeredMbpsPerGPU, requiredMbpsPerGPU uint32) error {
	if !offertypes.EgressFits(offeredMbpsPerGPU, requiredMbpsPerGPU) {
		return fmt.Errorf("job needs %d Mbit/s of egress per GPU, runner.egress_mbps_per_gpu gives %d", requiredMbpsPerGPU, offeredMbpsPerGPU)
	}
	return nil
}
