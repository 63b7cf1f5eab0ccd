package types

import (
	"bytes"
	"time"

	errorsmod "cosmossdk.io/errors"

	"github.com/idlegpu/idlegpu/x/settlement/audit"
)

// IsLive reports whether an audit still waits for an answer or a reveal.
func (a Audit) IsLive() bool {
	return a.Status == AUDIT_STATUS_OPEN || a.Status == AUDIT_STATUS_ANSWERED
}

// QueueTime is when the audit's next automatic step is due: the timeout of
// an OPEN audit, the reveal expiry of an ANSWERED one, the pruning of a
// resolved one.
func (a Audit) QueueTime() time.Time {
	switch a.Status {
	case AUDIT_STATUS_OPEN:
		if a.AnswerBy.After(a.Deadline) {
			return a.AnswerBy // a halt moved it
		}
		return a.Deadline
	case AUDIT_STATUS_ANSWERED:
		return a.RevealBy
	default:
		return a.PruneAt
	}
}

// ValidateBasic checks what needs no state: a known workload, sizes, a
// positive fee.
func (m *MsgOpenAudit) ValidateBasic() error {
	switch {
	case !audit.IsKnown(m.Workload):
		return errorsmod.Wrapf(ErrInvalidAudit, "unknown workload %q (known: %v)", m.Workload, audit.Known)
	case len(m.Seed) != audit.SeedSize:
		return errorsmod.Wrapf(ErrInvalidAudit, "seed must be %d bytes, got %d", audit.SeedSize, len(m.Seed))
	case m.WorkUnits == 0:
		return errorsmod.Wrap(ErrInvalidAudit, "work_units must be at least 1")
	case len(m.Commitment) != HashSize:
		return errorsmod.Wrapf(ErrInvalidAudit, "commitment must be %d bytes, got %d", HashSize, len(m.Commitment))
	case m.GpuUuid == "" || len(m.GpuUuid) > 128:
		return errorsmod.Wrap(ErrInvalidAudit, "gpu_uuid must be 1..128 bytes")
	case m.Fee.Validate() != nil || !m.Fee.IsPositive():
		return errorsmod.Wrapf(ErrInvalidAudit, "fee %s must be a positive coin", m.Fee)
	}
	return nil
}

// Opens reports whether salt and expected open the commitment:
// sha256(salt ‖ expected) with both 32 bytes.
func Opens(commitment, salt, expected []byte) bool {
	if len(salt) != HashSize || len(expected) != audit.ResultSize {
		return false
	}
	c := audit.Commitment([32]byte(salt), [32]byte(expected))
	return bytes.Equal(commitment, c[:])
}

// LeastAuditTime is the shortest time an audit of work units on a model may
// give: ceil(units / units_per_second) × audit_slack + audit_latency, with
// overflow saturating (and so exceeding audit_max).
func (p Params) LeastAuditTime(m GPUModel, units uint64) time.Duration {
	ref := units / m.AuditUnitsPerSecond
	if units%m.AuditUnitsPerSecond != 0 {
		ref++
	}
	const maxSeconds = uint64(1<<63-1) / uint64(time.Second)
	s := ref * uint64(p.AuditSlack)
	if p.AuditSlack != 0 && s/uint64(p.AuditSlack) != ref || s > maxSeconds-p.AuditLatencySeconds {
		return time.Duration(1<<63 - 1)
	}
	return time.Duration(s+p.AuditLatencySeconds) * time.Second
}
