package daemon

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/idlegpu/idlegpu/agent/audit"
	"github.com/idlegpu/idlegpu/agent/chain"
	"github.com/idlegpu/idlegpu/agent/metrics"
	settlementtypes "github.com/idlegpu/idlegpu/x/settlement/types"
)

const (
	// auditMargin is how long before an audit's deadline the answer must
	// be computed: time for its tx to reach a block on a slow chain. At
	// most a quarter of the audit's time is given to it.
	auditMargin = 20 * time.Second
	// auditRetries bounds recomputations when a halt moves a deadline.
	auditRetries = 3
	// auditsShown bounds the finished audits kept for `status`.
	auditsShown = 10
)

// AuditState is one audit as the agent handles it (shown by `status`).
type AuditState struct {
	ID       uint64    `json:"id"`
	GPU      string    `json:"gpu"`
	Workload string    `json:"workload"`
	Units    uint64    `json:"work_units"`
	AnswerBy time.Time `json:"answer_by"`
	// State is running, answered, failed or late, then the chain's verdict.
	State string `json:"state"`
	// Runner says where the work ran (cuda, cpu-reference).
	Runner  string  `json:"runner"`
	Seconds float64 `json:"seconds,omitempty"`
	Error   string  `json:"error,omitempty"`
}

// Auditor answers the chain's audits of the provider's GPUs on this
// machine: each OPEN audit runs once on its GPU, whose jobs wait until the
// answer is in (the chain holds the GPU out of the market meanwhile), and
// is answered before its deadline. A restarted agent answers again what is
// still OPEN: nothing is kept on disk.
type Auditor struct {
	runner  audit.Runner
	q       auditQueries
	submit  func(ctx context.Context, m *settlementtypes.MsgAnswerAudit) error
	m       *metrics.Metrics
	log     *slog.Logger
	health  *Health
	signer  string
	gpus    func(uuid string) bool
	chainAt func() time.Time

	mu   sync.Mutex
	live map[uint64]*AuditState // running, or answered and awaiting the verdict
	done []AuditState           // the last finished ones, newest last
	wg   sync.WaitGroup
}

// auditQueries reads audits from the chain.
type auditQueries interface {
	Audits(ctx context.Context, provider string, status settlementtypes.AuditStatus) ([]settlementtypes.Audit, error)
	Audit(ctx context.Context, id uint64) (settlementtypes.Audit, error)
}

// Step starts every OPEN audit of provider's GPUs on this machine not yet
// running, and collects the verdicts of answered ones.
func (a *Auditor) Step(ctx context.Context, provider string) error {
	open, err := a.q.Audits(ctx, provider, settlementtypes.AUDIT_STATUS_OPEN)
	if err != nil {
		return err
	}
	for _, au := range open {
		if !a.gpus(au.GpuUuid) {
			continue // a GPU of another agent of the provider
		}
		a.mu.Lock()
		_, seen := a.live[au.Id]
		st := &AuditState{ID: au.Id, GPU: au.GpuUuid, Workload: au.Workload, Units: au.WorkUnits,
			AnswerBy: au.AnswerBy, State: "running", Runner: a.runnerName()}
		if !seen {
			a.live[au.Id] = st
		}
		a.mu.Unlock()
		if seen {
			continue
		}
		a.log.Info("audit opened: running it", "audit", au.Id, "gpu", au.GpuUuid, "workload", au.Workload,
			"units", au.WorkUnits, "answer_by", au.AnswerBy, "runner", st.Runner)
		a.wg.Add(1)
		go func() {
			defer a.wg.Done()
			a.run(ctx, au, st)
		}()
	}
	a.verdicts(ctx)
	a.publish()
	return nil
}

func (a *Auditor) runnerName() string {
	if a.runner == nil {
		return "none"
	}
	return a.runner.Name()
}

// Holds reports whether uuid is being audited: no job starts on it.
func (a *Auditor) Holds(uuid string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, st := range a.live {
		if st.GPU == uuid && st.State == "running" {
			return true
		}
	}
	return false
}

// Wait waits for running audits to stop (after their context ended).
func (a *Auditor) Wait() { a.wg.Wait() }

// run computes and answers one audit.
func (a *Auditor) run(ctx context.Context, au settlementtypes.Audit, st *AuditState) {
	start := time.Now()
	var res audit.Result
	err := errNoRunner
	for try := 0; try < auditRetries && a.runner != nil; try++ {
		left := au.AnswerBy.Sub(a.chainAt())
		cctx, cancel := context.WithTimeout(ctx, left-min(auditMargin, left/4))
		res, err = a.runner.Run(cctx, au.GpuUuid, au.Workload, au.Seed, au.WorkUnits)
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil {
			break
		}
		// Out of time: unless a chain halt moved the deadline, it is lost.
		now, qerr := a.q.Audit(ctx, au.Id)
		if qerr != nil || now.Status != settlementtypes.AUDIT_STATUS_OPEN || !now.AnswerBy.After(au.AnswerBy) {
			break
		}
		au = now
	}
	took := time.Since(start)
	if ctx.Err() != nil {
		// The agent is stopping: the next run answers the audit if it is
		// still OPEN.
		a.mu.Lock()
		delete(a.live, au.Id)
		a.mu.Unlock()
		return
	}
	if err != nil {
		result := "failed"
		if errors.Is(err, context.DeadlineExceeded) {
			result = "late"
		}
		a.log.Error("audit not answered: the provider will be judged on its timeout", "audit", au.Id, "gpu", au.GpuUuid,
			"result", result, "err", err, "seconds", took.Seconds())
		a.finish(au.Id, result, took, err)
		return
	}
	msg := &settlementtypes.MsgAnswerAudit{Signer: a.signer, AuditId: au.Id, Result: res[:]}
	for {
		err = a.submit(ctx, msg)
		if !errors.Is(err, chain.ErrNotIncluded) {
			break
		}
		// The tx may still land: the chain says whether it did.
		now, qerr := a.q.Audit(ctx, au.Id)
		if qerr == nil && now.Status != settlementtypes.AUDIT_STATUS_OPEN {
			err = nil
			break
		}
		if !a.chainAt().Before(au.AnswerBy) || ctx.Err() != nil {
			break
		}
	}
	if err != nil {
		result := "failed"
		if !a.chainAt().Before(au.AnswerBy) {
			result = "late"
		}
		a.log.Error("audit answer refused", "audit", au.Id, "result", result, "err", err)
		a.finish(au.Id, result, took, err)
		return
	}
	a.log.Info("audit answered", "audit", au.Id, "gpu", au.GpuUuid, "seconds", took.Seconds(),
		"units_per_second", float64(au.WorkUnits)/took.Seconds())
	a.m.Audits.WithLabelValues("answered").Inc()
	a.mu.Lock()
	st.State, st.Seconds = "answered", took.Seconds()
	a.mu.Unlock()
	a.publish()
}

// finish records an audit the agent could not answer; the chain's verdict
// (TIMED_OUT) is still collected.
func (a *Auditor) finish(id uint64, result string, took time.Duration, err error) {
	a.m.Audits.WithLabelValues(result).Inc()
	a.mu.Lock()
	if st, ok := a.live[id]; ok {
		st.State, st.Seconds, st.Error = result, took.Seconds(), err.Error()
	}
	a.mu.Unlock()
	a.publish()
}

// verdicts reads the outcome of audits no longer running: once the chain
// resolved one, its verdict is metered and logged, and it leaves the live
// set.
func (a *Auditor) verdicts(ctx context.Context) {
	a.mu.Lock()
	var waiting []uint64
	for id, st := range a.live {
		if st.State != "running" {
			waiting = append(waiting, id)
		}
	}
	a.mu.Unlock()
	slices.Sort(waiting)
	for _, id := range waiting {
		au, err := a.q.Audit(ctx, id)
		if err != nil || au.IsLive() {
			continue // asked again next block; a pruned audit is NotFound
		}
		verdict := verdictName(au.Status)
		a.m.Audits.WithLabelValues(verdict).Inc()
		level := slog.LevelInfo
		if au.Status == settlementtypes.AUDIT_STATUS_WRONG || au.Status == settlementtypes.AUDIT_STATUS_TIMED_OUT {
			level = slog.LevelError
		}
		a.log.Log(ctx, level, "audit resolved", "audit", id, "verdict", au.Status, "fee", au.Fee.String())
		a.mu.Lock()
		st := *a.live[id]
		delete(a.live, id)
		st.State = verdict
		a.done = append(a.done, st)
		if len(a.done) > auditsShown {
			a.done = slices.Delete(a.done, 0, len(a.done)-auditsShown)
		}
		a.mu.Unlock()
	}
}

// verdictName is a verdict's metric label: AUDIT_STATUS_CORRECT → correct.
func verdictName(s settlementtypes.AuditStatus) string {
	name := s.String()
	const prefix = "AUDIT_STATUS_"
	if len(name) > len(prefix) {
		name = name[len(prefix):]
	}
	out := []byte(name)
	for i, c := range out {
		if c >= 'A' && c <= 'Z' {
			out[i] = c + 'a' - 'A'
		}
	}
	return string(out)
}

// States lists the live audits, then the last finished ones.
func (a *Auditor) States() []AuditState {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := slices.Clone(a.done)
	for _, id := range slices.Sorted(maps.Keys(a.live)) {
		out = append(out, *a.live[id])
	}
	return out
}

// publish puts the audits in the health report.
func (a *Auditor) publish() {
	states := a.States()
	a.health.update(func(s *HealthState) { s.Audits = states })
}

// errNoRunner is an audit on a machine where no runner could be loaded
// (an NVML machine without the CUDA driver library).
var errNoRunner = fmt.Errorf("%w: no audit runner for this GPU backend", audit.ErrUnavailable)

// newAuditor builds the daemon's auditor: the given runner for real GPUs,
// the CPU reference paced to the chain's speed for the model with the sim
// backend.
func (d *Daemon) newAuditor(r audit.Runner) *Auditor {
	if r == nil && d.gpus.Name() == "sim" {
		r = audit.CPU{UnitsPerSecond: func(uuid string) uint64 {
			m, _ := d.params.Settlement.GPUModel(d.devices[uuid].Model)
			return m.AuditUnitsPerSecond
		}}
	}
	return &Auditor{
		runner: r, q: d.q, m: d.m, log: d.log, health: d.health, signer: d.signer,
		submit: func(ctx context.Context, m *settlementtypes.MsgAnswerAudit) error {
			_, err := d.chain.Submit(ctx, m)
			return err
		},
		gpus:    func(uuid string) bool { _, ok := d.devices[uuid]; return ok },
		chainAt: d.health.chainNow,
		live:    map[uint64]*AuditState{},
	}
}
