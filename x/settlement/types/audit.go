package types

import (
	"fmt"
	"math"
	"time"

	errorsmod "cosmossdk.io/errors"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/x/settlement/audit"
)

// IsLive reports whether an audit still waits for a root or its openings.
func (a Audit) IsLive() bool {
	return a.Status == AUDIT_STATUS_OPEN || a.Status == AUDIT_STATUS_ANSWERED
}

// QueueTime is when the audit's next automatic step is due: the answer
// deadline of an OPEN audit, the proof deadline of an ANSWERED one (each
// as last moved), the pruning of a resolved one.
func (a Audit) QueueTime() time.Time {
	switch a.Status {
	case AUDIT_STATUS_OPEN:
		return a.AnswerBy
	case AUDIT_STATUS_ANSWERED:
		return a.ProveBy
	default:
		return a.PruneAt
	}
}

// Shape converts the stored shape to the workload's.
func (s AuditShape) Shape() audit.Shape {
	return audit.Shape{TableItems: s.TableItems, Lanes: s.Lanes, Segments: s.Segments, SegmentSteps: s.SegmentSteps}
}

// NewAuditShape stores a workload shape.
func NewAuditShape(s audit.Shape) AuditShape {
	return AuditShape{TableItems: s.TableItems, Lanes: s.Lanes, Segments: s.Segments, SegmentSteps: s.SegmentSteps}
}

// AuditPlan is what the chain asks of a model: the workload's shape, the
// board's expected time for it and the deadline it gets.
type AuditPlan struct {
	Shape    audit.Shape
	Expected time.Duration
	// Allowance is the time from opening to the answer deadline.
	Allowance time.Duration
}

// AuditPlan sizes a model's audit from its memory and bandwidth
// (docs/design.md#audits) and gives it the deadline rule:
//
//	allowance = max(2 × expected + audit_latency, halt_gap + expected)
//
// rounded up to whole seconds, so an honest board has twice its expected
// time plus a network allowance, and never less than a chain halt plus
// the work.
func (p Params) AuditPlan(m GPUModel) (AuditPlan, error) {
	if m.MemoryBandwidthGbps == 0 {
		return AuditPlan{}, fmt.Errorf("%s has no memory bandwidth", m.Model)
	}
	s, err := audit.ShapeFor(m.MemoryMib)
	if err != nil {
		return AuditPlan{}, fmt.Errorf("%s: %w", m.Model, err)
	}
	ms := audit.TimingFor(s, m.MemoryBandwidthGbps).Ms()
	if ms > uint64(math.MaxInt32)*1000 {
		return AuditPlan{}, fmt.Errorf("%s: expected audit time %d ms is out of range", m.Model, ms)
	}
	expected := time.Duration(ms) * time.Millisecond
	allowance := max(2*expected+time.Duration(p.AuditLatencySeconds)*time.Second, p.HaltGap()+expected)
	if r := allowance % time.Second; r != 0 {
		allowance += time.Second - r
	}
	return AuditPlan{Shape: s, Expected: expected, Allowance: allowance}, nil
}

// validate checks a stored audit's form: a memwalk audit of a valid shape
// (commit-reveal audits survive only as CANCELLED or old verdicts), its
// parties' addresses, and a root exactly when one was given.
func (a Audit) validate() error {
	if _, ok := AuditStatus_name[int32(a.Status)]; !ok || a.Status == AUDIT_STATUS_UNSPECIFIED {
		return fmt.Errorf("status %d", a.Status)
	}
	if _, err := sdk.AccAddressFromBech32(a.Provider); err != nil {
		return fmt.Errorf("provider: %w", err)
	}
	if a.Requester != "" {
		if _, err := sdk.AccAddressFromBech32(a.Requester); err != nil {
			return fmt.Errorf("requester: %w", err)
		}
	}
	if a.GpuUuid == "" || len(a.GpuUuid) > 128 {
		return fmt.Errorf("gpu_uuid must be 1..128 bytes")
	}
	if !a.Fee.IsNil() && !(a.Fee.Denom == "" && a.Fee.IsZero()) && a.Fee.Validate() != nil {
		return fmt.Errorf("fee %s", a.Fee)
	}
	if a.Status == AUDIT_STATUS_CANCELLED || a.Status == AUDIT_STATUS_BAD_REVEAL {
		return nil // before memwalk/v1: no shape, a legacy result
	}
	if !audit.IsKnown(a.Workload) || len(a.Seed) != audit.SeedSize {
		return fmt.Errorf("workload %q with a %d-byte seed", a.Workload, len(a.Seed))
	}
	if err := a.Shape.Shape().Validate(); err != nil {
		return fmt.Errorf("shape: %w", err)
	}
	rooted := a.Status == AUDIT_STATUS_ANSWERED || a.Status == AUDIT_STATUS_CORRECT || a.Status == AUDIT_STATUS_WRONG || a.Status == AUDIT_STATUS_UNPROVEN
	if rooted != (len(a.Root) == HashSize) || (!rooted && len(a.Root) != 0) {
		return fmt.Errorf("a %s audit has a %d-byte root exactly when answered", a.Status, HashSize)
	}
	if a.Samples == 0 || a.Samples > MaxAuditSamples {
		return fmt.Errorf("samples %d outside 1..%d", a.Samples, MaxAuditSamples)
	}
	return nil
}

// ValidateBasic checks what needs no state: the requester, a GPU and, when
// set, a valid fee.
func (m *MsgRequestAudit) ValidateBasic() error {
	if _, err := sdk.AccAddressFromBech32(m.Requester); err != nil {
		return errorsmod.Wrapf(ErrInvalidAudit, "requester: %v", err)
	}
	switch {
	case m.GpuUuid == "" || len(m.GpuUuid) > 128:
		return errorsmod.Wrap(ErrInvalidAudit, "gpu_uuid must be 1..128 bytes")
	case m.Fee.Denom == "" && (m.Fee.Amount.IsNil() || m.Fee.Amount.IsZero()):
		return nil // a required audit: no fee
	case m.Fee.Validate() != nil || !m.Fee.IsPositive():
		return errorsmod.Wrapf(ErrInvalidAudit, "fee %s must be a positive coin, or empty", m.Fee)
	}
	return nil
}

// ValidateBasic checks the signer and the root's size.
func (m *MsgAnswerAudit) ValidateBasic() error {
	if err := validSigner("signer", m.Signer); err != nil {
		return err
	}
	if len(m.Root) != HashSize {
		return errorsmod.Wrapf(ErrInvalidAudit, "root must be %d bytes, got %d", HashSize, len(m.Root))
	}
	return nil
}

// MaxAuditSamples bounds audit_samples, and so a proof's openings.
const MaxAuditSamples = 64

// ValidateBasic checks the signer and the openings' sizes; the chain
// checks them against the audit.
func (m *MsgProveAudit) ValidateBasic() error {
	if err := validSigner("signer", m.Signer); err != nil {
		return err
	}
	if len(m.Openings) == 0 || len(m.Openings) > MaxAuditSamples {
		return errorsmod.Wrapf(ErrInvalidAudit, "%d openings: need 1..%d", len(m.Openings), MaxAuditSamples)
	}
	for i, o := range m.Openings {
		if len(o.State) != audit.StateBytes || len(o.PrevState) != 0 && len(o.PrevState) != audit.StateBytes {
			return errorsmod.Wrapf(ErrInvalidAudit, "opening %d: states must be %d bytes", i, audit.StateBytes)
		}
		if len(o.Path) > MaxMerklePath || len(o.PrevPath) > MaxMerklePath {
			return errorsmod.Wrapf(ErrInvalidAudit, "opening %d: paths longer than %d", i, MaxMerklePath)
		}
	}
	return nil
}
