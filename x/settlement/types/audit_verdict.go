package types

import (
	errorsmod "cosmossdk.io/errors"

	"github.com/idlegpu/idlegpu/x/settlement/audit"
)

// GasPerAuditStep is the gas a proof pays for each table read the chain
// recomputes: one item derivation, Parents cache reads (about 2.6 µs on
// the benchmark machine, docs/benchmarks.md), priced like a few store reads.
const GasPerAuditStep = 250

// AuditProofGas is the gas of checking an audit's openings: every sampled
// segment recomputed, plus the seed's cache.
func AuditProofGas(s audit.Shape, samples uint32) uint64 {
	return (uint64(samples)*uint64(s.SegmentSteps) + audit.CacheItems) * GasPerAuditStep
}

// AuditVerdict is the audit rule (docs/design.md#audits): the openings
// must be exactly the sampled leaves, in order, each with its predecessor
// (a lane's first segment starts from the seed), every state proved under
// root; otherwise the proof is refused (an error; the provider may send a
// correct one until prove_by). Then each sampled segment is recomputed from
// the seed, deriving every table read from the cache: CORRECT if all end
// in the committed state, WRONG — fraud — if any does not.
func AuditVerdict(seed, root []byte, s audit.Shape, samples []uint64, openings []AuditOpening) (AuditStatus, error) {
	if len(openings) != len(samples) {
		return 0, errorsmod.Wrapf(ErrInvalidAudit, "%d openings for %d sampled leaves", len(openings), len(samples))
	}
	size := s.Leaves()
	checks := make([]audit.Opening, len(openings))
	for i, o := range openings {
		if o.LeafIndex != samples[i] {
			return 0, errorsmod.Wrapf(ErrInvalidAudit, "opening %d is leaf %d, the sample is leaf %d", i, o.LeafIndex, samples[i])
		}
		state, err := audit.StateFromBytes(o.State)
		if err != nil {
			return 0, errorsmod.Wrapf(ErrInvalidAudit, "opening %d: %v", i, err)
		}
		if err := VerifyMerklePath(root, leafHash(o.State), o.LeafIndex, size, o.Path); err != nil {
			return 0, errorsmod.Wrapf(err, "opening %d (leaf %d)", i, o.LeafIndex)
		}
		checks[i] = audit.Opening{Index: o.LeafIndex, State: state}
		if !s.NeedsPrev(o.LeafIndex) {
			if len(o.PrevState) != 0 || len(o.PrevPath) != 0 {
				return 0, errorsmod.Wrapf(ErrInvalidAudit, "opening %d: leaf %d starts its lane; no previous state", i, o.LeafIndex)
			}
			continue
		}
		prev, err := audit.StateFromBytes(o.PrevState)
		if err != nil {
			return 0, errorsmod.Wrapf(ErrInvalidAudit, "opening %d: previous %v", i, err)
		}
		if err := VerifyMerklePath(root, leafHash(o.PrevState), o.LeafIndex-1, size, o.PrevPath); err != nil {
			return 0, errorsmod.Wrapf(err, "opening %d (previous leaf %d)", i, o.LeafIndex-1)
		}
		checks[i].Prev = prev
	}
	cache, err := audit.NewCache(seed)
	if err != nil {
		return 0, errorsmod.Wrap(ErrInvalidAudit, err.Error())
	}
	for _, c := range checks {
		ok, err := audit.CheckSegment(cache, seed, s, c)
		if err != nil {
			return 0, errorsmod.Wrap(ErrInvalidAudit, err.Error())
		}
		if !ok {
			return AUDIT_STATUS_WRONG, nil
		}
	}
	return AUDIT_STATUS_CORRECT, nil
}
