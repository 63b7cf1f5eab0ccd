package auditor

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"time"

	settlementtypes "github.com/idlegpu/idlegpu/x/settlement/types"
)

// auditsShown bounds the finished audits kept for `status`.
const auditsShown = 10

// The agent's own states of an audit (AuditState.State); once the chain
// judged it, the verdict's name (correct, wrong, missed, unproven) follows.
const (
	// StateRunning: the transcript is being computed on the GPU, then its
	// root sent.
	StateRunning = "running"
	// StateAnswered: the root is on chain; the openings follow once the
	// samples are drawn.
	StateAnswered = "answered"
	// StateProved: the openings are on chain; the verdict came with them.
	StateProved = "proved"
	// StateFailed: the workload could not run, or the chain refused a
	// transaction for good.
	StateFailed = "failed"
	// StateLate: the deadline passed before the agent's part was done.
	StateLate = "late"
	// StateMismatch: after a restart, the recomputed transcript's root is
	// not the one on chain; nothing is proved.
	StateMismatch = "mismatch"
)

// AuditState is one audit as the agent handles it (shown by `status` and
// /healthz).
type AuditState struct {
	ID  uint64 `json:"id"`
	GPU string `json:"gpu"`
	// Reason is why the chain opened it: required, random or requested.
	Reason   string    `json:"reason"`
	Workload string    `json:"workload"`
	AnswerBy time.Time `json:"answer_by"`
	ProveBy  time.Time `json:"prove_by,omitzero"`
	// State is running, answered, proved, failed, late or mismatch, then
	// the chain's verdict.
	State string `json:"state"`
	// Runner says where the work ran (cuda, cpu-reference).
	Runner string `json:"runner"`
	// Seconds is how long the transcript took.
	Seconds float64 `json:"seconds,omitempty"`
	Error   string  `json:"error,omitempty"`
}

// newState is an audit's state when the auditor first sees it.
func newState(au settlementtypes.Audit, runner string) *AuditState {
	return &AuditState{
		ID: au.Id, GPU: au.GpuUuid, Reason: lowerName(au.Reason.String(), "AUDIT_REASON_"), Workload: au.Workload,
		AnswerBy: au.AnswerBy, ProveBy: au.ProveBy, State: StateRunning, Runner: runner,
	}
}

// verdictName is a verdict's metric label: AUDIT_STATUS_CORRECT → correct.
func verdictName(s settlementtypes.AuditStatus) string {
	return lowerName(s.String(), "AUDIT_STATUS_")
}

// lowerName is an enum name without its prefix, in lower case.
func lowerName(name, prefix string) string {
	return strings.ToLower(strings.TrimPrefix(name, prefix))
}

// update changes a followed audit's state under the lock and publishes it.
func (a *Auditor) update(st *AuditState, f func(st *AuditState)) {
	a.mu.Lock()
	f(st)
	a.mu.Unlock()
	a.publish()
}

// setState records one of the agent's states, metered under its name.
func (a *Auditor) setState(st *AuditState, state string, err error) {
	a.cfg.Metrics.Audits.WithLabelValues(state).Inc()
	a.update(st, func(st *AuditState) {
		st.State = state
		if err != nil {
			st.Error = err.Error()
		}
	})
}

// judged records the chain's verdict: the audit leaves the live set. A
// pass is announced (Passed); a miss or failed proof by this agent delays
// the GPU's next required audit (retryAfterMiss).
func (a *Auditor) judged(ctx context.Context, au settlementtypes.Audit, st *AuditState) {
	verdict := verdictName(au.Status)
	a.cfg.Metrics.Audits.WithLabelValues(verdict).Inc()
	level := slog.LevelInfo
	if au.Status != settlementtypes.AUDIT_STATUS_CORRECT {
		level = slog.LevelError
	}
	a.cfg.Log.Log(ctx, level, "audit judged", "audit", au.Id, "gpu", au.GpuUuid, "verdict", au.Status,
		"reason", st.Reason, "fee", feeString(au))
	a.mu.Lock()
	delete(a.live, au.Id)
	delete(a.pace, au.GpuUuid)
	a.ended[au.Id] = a.cfg.Now()
	for id, at := range a.ended {
		if a.cfg.Now().Sub(at) > keepEnded {
			delete(a.ended, id)
		}
	}
	if au.Status == settlementtypes.AUDIT_STATUS_MISSED || au.Status == settlementtypes.AUDIT_STATUS_UNPROVEN {
		a.missedAt[au.GpuUuid] = a.cfg.Now()
	}
	done := *st
	done.State = verdict
	a.done = append(a.done, done)
	if len(a.done) > auditsShown {
		a.done = slices.Delete(a.done, 0, len(a.done)-auditsShown)
	}
	a.mu.Unlock()
	a.publish()
	if au.Status == settlementtypes.AUDIT_STATUS_CORRECT && a.cfg.Passed != nil {
		a.cfg.Passed(au.GpuUuid)
	}
}

// forget drops an audit whose follower stopped with the agent: the next
// run follows it again.
func (a *Auditor) forget(id uint64) {
	a.mu.Lock()
	if st, ok := a.live[id]; ok {
		delete(a.pace, st.GPU)
		delete(a.live, id)
	}
	a.mu.Unlock()
}

// feeString is an audit's fee as logged ("none" for required and random
// audits).
func feeString(au settlementtypes.Audit) string {
	if au.Fee.IsNil() || !au.Fee.IsPositive() {
		return "none"
	}
	return au.Fee.String()
}
