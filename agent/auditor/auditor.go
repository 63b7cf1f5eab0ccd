// Package auditor answers the chain's memwalk/v1 audits of this machine's
// GPUs (x/settlement, docs/design.md#audits) and asks for the audits they
// need to stay in the market. Each audit runs once on its GPU (no job
// starts there meanwhile), is answered with its transcript's Merkle root
// before answer_by, and proved with the sampled leaves' openings once the
// next block drew them. It submits through the chain client on its own
// goroutines, never behind the daemon's per-block step, and keeps nothing
// on disk: the seed is on chain, so a restarted agent recomputes the same
// transcript and goes on where the chain stands.
package auditor

import (
	"context"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"time"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/agent/audit"
	"github.com/idlegpu/idlegpu/agent/metrics"
	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
	settlementtypes "github.com/idlegpu/idlegpu/x/settlement/types"
)

const (
	// defaultPoll is how often the auditor looks at the chain when no block
	// notification comes first.
	defaultPoll = 2 * time.Second
	// defaultRequiredEvery is how often the GPUs' passes are checked for a
	// required audit.
	defaultRequiredEvery = 30 * time.Second
	// keepEnded is how long a finished audit's id is remembered, so that a
	// listing read before its verdict does not start it again.
	keepEnded = time.Hour
)

// Queries is what the auditor reads from the chain.
type Queries interface {
	// Audits lists provider's audits in a status.
	Audits(ctx context.Context, provider string, status settlementtypes.AuditStatus) ([]settlementtypes.Audit, error)
	// Audit is one audit.
	Audit(ctx context.Context, id uint64) (settlementtypes.Audit, error)
	// AuditSamples are the leaves an ANSWERED audit must open; drawn is
	// false until the block after the root's block drew them.
	AuditSamples(ctx context.Context, id uint64) (res settlementtypes.QueryAuditSamplesResponse, drawn bool, err error)
	// GPUVerification is a GPU's audit record and whether its pass counts.
	GPUVerification(ctx context.Context, uuid string) (settlementtypes.QueryGPUVerificationResponse, error)
	// ProviderGPUs lists the provider's registered GPUs.
	ProviderGPUs(ctx context.Context, provider string) ([]providertypes.GPU, error)
}

// Submitter sends transactions signed by the agent key (*chain.Client).
type Submitter interface {
	Submit(ctx context.Context, msgs ...sdk.Msg) (*sdk.TxResponse, error)
}

// Config is what an Auditor works with.
type Config struct {
	// Provider is the provider whose audits are followed; Signer the agent
	// key that answers them (the operator or one of its agents).
	Provider, Signer string
	// GPUs are this machine's GPUs: audits of the provider's other GPUs
	// are another agent's.
	GPUs []string
	// Runner computes transcripts on the GPUs. Nil with Simulated: the CPU
	// reference, paced to each audit's expected_ms so a simulated GPU
	// answers no faster than the board it claims. Nil otherwise: audits
	// cannot run here (logged), and no required audit is asked for.
	Runner    audit.Runner
	Simulated bool
	// Validity is x/settlement's audit_validity: a pass is renewed in its
	// last quarter.
	Validity time.Duration
	Queries  Queries
	Chain    Submitter
	// Busy says whether a lease on this machine holds the GPU: it is not
	// audited then (the chain refuses anyway).
	Busy func(uuid string) bool
	// Now is the chain's time (an estimate from the last block).
	Now     func() time.Time
	Metrics *metrics.Metrics
	Log     *slog.Logger
	// Publish, when set, receives the audits' states after each change
	// (the daemon's /healthz and `status`).
	Publish func([]AuditState)
	// Passed, when set, is told of each GPU that passed an audit: it may
	// go (back) into an offer.
	Passed func(uuid string)
	// Poll and RequiredEvery override defaultPoll and
	// defaultRequiredEvery (tests).
	Poll, RequiredEvery time.Duration
}

// Auditor follows the provider's audits of this machine's GPUs, one
// goroutine per live audit, and asks for the required ones.
type Auditor struct {
	cfg    Config
	runner audit.Runner
	local  map[string]bool
	blocks beat
	wg     sync.WaitGroup

	mu sync.Mutex
	// live are the audits being followed; done the last finished ones,
	// newest last; ended the finished ones' ids, kept for keepEnded.
	live  map[uint64]*AuditState
	done  []AuditState
	ended map[uint64]time.Time
	// pace is a followed audit's expected time, by GPU (the simulated
	// runner's pace); computing are the GPUs running a workload now.
	pace      map[string]time.Duration
	computing map[string]bool
	// missedAt is when a GPU's audit last ended MISSED or UNPROVEN: its
	// next required audit waits (retryAfterMiss).
	missedAt map[string]time.Time

	// Owned by Run's goroutine.
	nextRequired time.Time
	asked        map[string]time.Time // required audit asked for, until seen live
	refused      map[string]time.Time // required audit refused: not asked again before
}

// New builds an Auditor; Run starts it.
func New(cfg Config) *Auditor {
	if cfg.Poll <= 0 {
		cfg.Poll = defaultPoll
	}
	if cfg.RequiredEvery <= 0 {
		cfg.RequiredEvery = defaultRequiredEvery
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.Metrics == nil {
		cfg.Metrics = metrics.New()
	}
	a := &Auditor{
		cfg: cfg, runner: cfg.Runner, local: map[string]bool{}, blocks: beat{ch: make(chan struct{})},
		live: map[uint64]*AuditState{}, pace: map[string]time.Duration{}, computing: map[string]bool{}, ended: map[uint64]time.Time{}, missedAt: map[string]time.Time{},
		asked: map[string]time.Time{}, refused: map[string]time.Time{},
	}
	for _, g := range cfg.GPUs {
		a.local[g] = true
	}
	if a.runner == nil && cfg.Simulated {
		a.runner = audit.CPU{Expected: a.expected}
	}
	return a
}

// Run follows the chain until ctx ends, then waits for the audits it
// started to stop. Failures are logged and retried: it never fails.
func (a *Auditor) Run(ctx context.Context) error {
	defer a.wg.Wait()
	if a.runner == nil {
		a.cfg.Log.Error("audits cannot run on this machine: audits of its GPUs will be missed and no required audit is asked for, so they stay out of the market (see `idlegpu-agent doctor`)")
	}
	t := time.NewTicker(a.cfg.Poll)
	defer t.Stop()
	for {
		a.step(ctx)
		select {
		case <-ctx.Done():
			return nil
		case <-a.blocks.wait():
		case <-t.C:
		}
	}
}

// Notify tells the auditor a block was committed: it looks at the chain
// without waiting for its poll. It never blocks; a nil Auditor ignores it.
func (a *Auditor) Notify() {
	if a != nil {
		a.blocks.fire()
	}
}

// step starts every live audit of this machine's GPUs not followed yet,
// then asks for the required audits that are due.
func (a *Auditor) step(ctx context.Context) {
	auditing := map[string]bool{}
	for _, status := range []settlementtypes.AuditStatus{settlementtypes.AUDIT_STATUS_OPEN, settlementtypes.AUDIT_STATUS_ANSWERED} {
		audits, err := a.cfg.Queries.Audits(ctx, a.cfg.Provider, status)
		if err != nil {
			if ctx.Err() == nil {
				a.cfg.Log.Warn("audits: listing failed, retrying", "status", status, "err", err)
			}
			return
		}
		for _, au := range audits {
			if a.local[au.GpuUuid] {
				auditing[au.GpuUuid] = true
				a.start(ctx, au)
			}
		}
	}
	a.requestRequired(ctx, auditing)
}

// start follows an audit in its own goroutine, unless it is followed
// already or finished.
func (a *Auditor) start(ctx context.Context, au settlementtypes.Audit) {
	a.mu.Lock()
	_, followed := a.live[au.Id]
	_, ended := a.ended[au.Id]
	if followed || ended {
		a.mu.Unlock()
		return
	}
	st := newState(au, a.runnerName())
	a.live[au.Id] = st
	a.pace[au.GpuUuid] = time.Duration(au.ExpectedMs) * time.Millisecond
	a.mu.Unlock()
	a.cfg.Log.Info("audit found: following it", "audit", au.Id, "gpu", au.GpuUuid, "status", au.Status,
		"reason", st.Reason, "expected_ms", au.ExpectedMs, "answer_by", au.AnswerBy, "runner", st.Runner)
	a.publish()
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		a.follow(ctx, au, st)
	}()
}

func (a *Auditor) runnerName() string {
	if a.runner == nil {
		return "none"
	}
	return a.runner.Name()
}

// expected is the audit time the GPU's live audit claims (the simulated
// runner's pace).
func (a *Auditor) expected(uuid string) time.Duration {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.pace[uuid]
}

// Holds reports whether an audit is computing on the GPU: no job starts
// there until it is done. A nil Auditor holds nothing.
func (a *Auditor) Holds(uuid string) bool {
	if a == nil {
		return false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.computing[uuid]
}

// Auditing reports whether the GPU has an audit the auditor follows (open
// or answered): the chain keeps it out of new offers until the verdict.
func (a *Auditor) Auditing(uuid string) bool {
	if a == nil {
		return false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, st := range a.live {
		if st.GPU == uuid {
			return true
		}
	}
	return false
}

// States lists the last finished audits, then the live ones by id.
func (a *Auditor) States() []AuditState {
	if a == nil {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	out := slices.Clone(a.done)
	for _, id := range slices.Sorted(maps.Keys(a.live)) {
		out = append(out, *a.live[id])
	}
	return out
}

// publish hands the states to Config.Publish.
func (a *Auditor) publish() {
	if a.cfg.Publish != nil {
		a.cfg.Publish(a.States())
	}
}

// beat is a broadcast of block notifications: every waiter wakes.
type beat struct {
	mu sync.Mutex
	ch chan struct{}
}

// wait is closed at the next fire.
func (b *beat) wait() <-chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.ch
}

func (b *beat) fire() {
	b.mu.Lock()
	defer b.mu.Unlock()
	close(b.ch)
	b.ch = make(chan struct{})
}
