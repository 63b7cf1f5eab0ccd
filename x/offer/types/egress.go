package types

import (
	"math"

	errorsmod "cosmossdk.io/errors"
)

// MaxEgressMbpsPerGPU bounds egress_mbps_per_gpu and a job's
// min_egress_mbps_per_gpu: 100 Gbit/s per GPU is above any host's uplink
// share (a 400 Gbit/s NIC over 8 GPUs is 50 each), so a unit slip (kbit/s
// for Mbit/s) is caught, and per GPU × GPUs stays far inside a uint64.
const MaxEgressMbpsPerGPU = 100_000

// validateEgress bounds the internet egress that comes with each GPU.
func (t OfferTerms) validateEgress() error {
	if t.EgressMbpsPerGpu > MaxEgressMbpsPerGPU {
		return errorsmod.Wrapf(ErrInvalidResources, "egress_mbps_per_gpu %d: at most %d", t.EgressMbpsPerGpu, MaxEgressMbpsPerGPU)
	}
	return nil
}

// GivesEgress reports whether the terms give at least minMbps of internet
// egress per GPU (EgressFits).
func (t OfferTerms) GivesEgress(minMbps uint32) bool {
	return EgressFits(t.EgressMbpsPerGpu, minMbps)
}

// EgressFits is the network fit rule, applied by clearing and by the agent
// before it takes a lease: an offer of offeredMbps per GPU (0: no network)
// serves a job needing requiredMbps per GPU when it gives at least that; a
// job needing none (0) fits every offer.
func EgressFits(offeredMbps, requiredMbps uint32) bool {
	return offeredMbps >= requiredMbps
}

// LeaseEgressMbps is the egress a lease's job runs with, in Mbit/s for all
// its GPUs: none when the job needs none (a job that did not ask for the
// network does not get it), else the offer's rate per GPU × the GPUs leased.
// It saturates at the uint32 range, which valid terms never reach
// (MaxEgressMbpsPerGPU × 64 GPUs per lease is 6.4 million).
func LeaseEgressMbps(offeredPerGPU, requiredPerGPU, gpus uint32) uint32 {
	if requiredPerGPU == 0 {
		return 0
	}
	return uint32(min(uint64(offeredPerGPU)*uint64(gpus), math.MaxUint32))
}
