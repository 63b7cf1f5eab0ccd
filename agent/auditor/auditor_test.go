package auditor_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	sdk "github.com/cosmos/cosmos-sdk/types"

	"github.com/idlegpu/idlegpu/agent/audit"
	"github.com/idlegpu/idlegpu/agent/auditor"
	"github.com/idlegpu/idlegpu/agent/metrics"
	"github.com/idlegpu/idlegpu/chainclient"
	"github.com/idlegpu/idlegpu/internal/ctxtime"
	settlementaudit "github.com/idlegpu/idlegpu/x/settlement/audit"
	settlementtypes "github.com/idlegpu/idlegpu/x/settlement/types"
)

// testRunner is the CPU reference, counted, optionally slowed down or held
// until gate closes.
type testRunner struct {
	delay   time.Duration
	gate    chan struct{}
	started chan string

	mu                        sync.Mutex
	runs, running, maxRunning int
	cancelled                 int
}

func (*testRunner) Name() string { return "test-cpu" }

func (r *testRunner) Run(ctx context.Context, uuid string, seed []byte, s settlementaudit.Shape) (settlementaudit.States, error) {
	r.mu.Lock()
	r.runs++
	r.running++
	r.maxRunning = max(r.maxRunning, r.running)
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		r.running--
		if ctx.Err() != nil {
			r.cancelled++
		}
		r.mu.Unlock()
	}()
	if r.started != nil {
		r.started <- uuid
	}
	if r.gate != nil {
		select {
		case <-r.gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if err := ctxtime.Sleep(ctx, r.delay); err != nil {
		return nil, err
	}
	return settlementaudit.Run(ctx, seed, s)
}

func (r *testRunner) count() (runs, maxRunning, cancelled int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.runs, r.maxRunning, r.cancelled
}

// logBuffer collects the auditor's log lines.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// running is an Auditor running on a fake chain.
type running struct {
	*auditor.Auditor
	m      *metrics.Metrics
	logs   *logBuffer
	passed chan string
	stop   func()
}

// start runs an Auditor of this machine's GPUs GPU-a..GPU-e on c.
func start(t *testing.T, c *fakeChain, r audit.Runner, edit func(*auditor.Config)) *running {
	t.Helper()
	h := &running{m: metrics.New(), logs: &logBuffer{}, passed: make(chan string, 16)}
	cfg := auditor.Config{
		Provider: provider, Signer: signer, GPUs: []string{"GPU-a", "GPU-b", "GPU-c", "GPU-d", "GPU-e"},
		Runner: r, Validity: validity, Queries: c, Chain: c, Now: time.Now,
		Metrics: h.m, Log: slog.New(slog.NewTextHandler(h.logs, nil)),
		Passed: func(uuid string) { h.passed <- uuid },
		Poll:   5 * time.Millisecond, RequiredEvery: time.Hour,
	}
	if edit != nil {
		edit(&cfg)
	}
	h.Auditor = auditor.New(cfg)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = h.Run(ctx)
	}()
	var once sync.Once
	h.stop = func() { once.Do(func() { cancel(); <-done }) }
	t.Cleanup(func() {
		h.stop()
		if t.Failed() {
			t.Logf("auditor log:\n%s", h.logs)
		}
	})
	return h
}

// count is idlegpu_audits_total{result} as scraped (0 when absent).
func (h *running) count(result string) int {
	rec := httptest.NewRecorder()
	h.m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	prefix := fmt.Sprintf("idlegpu_audits_total{result=%q} ", result)
	for _, line := range strings.Split(rec.Body.String(), "\n") {
		if v, ok := strings.CutPrefix(line, prefix); ok {
			n, _ := strconv.Atoi(v)
			return n
		}
	}
	return 0
}

// state is the auditor's state of an audit ("" when it has none).
func (h *running) state(id uint64) string {
	for _, s := range h.States() {
		if s.ID == id {
			return s.State
		}
	}
	return ""
}

// waitState waits for the auditor to show an audit in a state.
func (h *running) waitState(t *testing.T, id uint64, state string) {
	t.Helper()
	require.Eventually(t, func() bool { return h.state(id) == state }, 10*time.Second, 5*time.Millisecond,
		"audit %d: want %s, have %q", id, state, h.state(id))
}

// rootOf is the root an honest board answers for an audit.
func rootOf(t *testing.T, au settlementtypes.Audit) []byte {
	t.Helper()
	states, err := settlementaudit.Run(context.Background(), au.Seed, au.Shape.Shape())
	require.NoError(t, err)
	return settlementtypes.NewAuditTranscript(states).Root()
}

// notIncluded is Submit's answer for a tx not seen in a block in time.
var notIncluded = fmt.Errorf("%w: 0ABC after 30s", chainclient.ErrNotIncluded)

// TestAnswerThenProve: an OPEN audit is computed once, answered with the
// transcript's root, and proved with the sampled leaves' openings, which
// the chain's own rule judges CORRECT; the pass is announced.
func TestAnswerThenProve(t *testing.T) {
	c := newFakeChain()
	au := c.open("GPU-a", settlementtypes.AUDIT_REASON_RANDOM)
	r := &testRunner{}
	h := start(t, c, r, nil)

	h.waitState(t, au.Id, "correct")
	root := rootOf(t, au)
	require.Equal(t, []*settlementtypes.MsgAnswerAudit{{Signer: signer, AuditId: au.Id, Root: root}},
		messages[*settlementtypes.MsgAnswerAudit](c))
	proofs := messages[*settlementtypes.MsgProveAudit](c)
	require.Len(t, proofs, 1)
	require.Equal(t, signer, proofs[0].Signer)
	require.Equal(t, au.Id, proofs[0].AuditId)
	leaves := samples(c.audit(au.Id))
	require.Len(t, leaves, 16)
	require.Len(t, proofs[0].Openings, len(leaves))
	for i, o := range proofs[0].Openings {
		require.Equal(t, leaves[i], o.LeafIndex, "opening %d is the %d-th sampled leaf", i, i)
	}
	verdict, err := settlementtypes.AuditVerdict(au.Seed, root, shape, leaves, proofs[0].Openings)
	require.NoError(t, err)
	require.Equal(t, settlementtypes.AUDIT_STATUS_CORRECT, verdict)
	require.Equal(t, settlementtypes.AUDIT_STATUS_CORRECT, c.audit(au.Id).Status)

	require.Equal(t, "GPU-a", <-h.passed)
	runs, _, _ := r.count()
	require.Equal(t, 1, runs, "computed once")
	require.Equal(t, 1, h.count("answered"))
	require.Equal(t, 1, h.count("proved"))
	require.Equal(t, 1, h.count("correct"))
	st := h.States()
	require.Len(t, st, 1)
	require.Equal(t, auditor.AuditState{ID: au.Id, GPU: "GPU-a", Reason: "random", Workload: settlementaudit.MemWalkV1Name,
		AnswerBy: au.AnswerBy, ProveBy: c.audit(au.Id).ProveBy, State: "correct", Runner: "test-cpu", Seconds: st[0].Seconds}, st[0])
	require.Positive(t, st[0].Seconds)
	require.False(t, h.Holds("GPU-a"))
	require.False(t, h.Auditing("GPU-a"))
}

// TestMovedDeadlineIsHonoured: a transcript that takes longer than the
// answer deadline first read is still answered when slow blocks moved the
// deadline on chain; when nothing moved it, the work stops and the chain
// judges the audit MISSED.
func TestMovedDeadlineIsHonoured(t *testing.T) {
	for _, moved := range []bool{true, false} {
		t.Run(fmt.Sprintf("moved=%v", moved), func(t *testing.T) {
			c := newFakeChain()
			c.answerIn = 150 * time.Millisecond
			au := c.open("GPU-a", settlementtypes.AUDIT_REASON_REQUIRED)
			r := &testRunner{delay: 500 * time.Millisecond, started: make(chan string, 1)}
			h := start(t, c, r, nil)
			<-r.started
			require.True(t, h.Holds("GPU-a"), "no job starts on a GPU computing an audit")
			if moved { // slow blocks: the chain moves the deadline the auditor first read
				c.set(au.Id, func(a *settlementtypes.Audit) { a.AnswerBy = a.AnswerBy.Add(time.Minute) })
				h.waitState(t, au.Id, "correct")
				require.Len(t, messages[*settlementtypes.MsgAnswerAudit](c), 1)
				require.Contains(t, h.logs.String(), "audit deadline moved by slow blocks")
				for _, s := range h.States() {
					require.Equal(t, au.AnswerBy.Add(time.Minute), s.AnswerBy, "the moved deadline is shown")
				}
				return
			}
			h.waitState(t, au.Id, "missed")
			require.Zero(t, c.sentCount(), "nothing sent after the deadline")
			require.Equal(t, 1, h.count("late"))
			require.Equal(t, 1, h.count("missed"))
			_, _, cancelled := r.count()
			require.Equal(t, 1, cancelled, "the work stopped at the deadline")
		})
	}
}

// TestResends: a transaction not seen in a block is checked on chain: sent
// again when it did not land, never when it did.
func TestResends(t *testing.T) {
	answer, prove := "*types.MsgAnswerAudit", "*types.MsgProveAudit"
	for _, tc := range []struct {
		name            string
		msg             string
		landed          bool
		answers, proofs int
	}{
		{"a lost answer is sent again", answer, false, 2, 1},
		{"a landed answer is not", answer, true, 1, 1},
		{"a lost proof is sent again", prove, false, 1, 2},
		{"a landed proof is not", prove, true, 1, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newFakeChain()
			c.decide = func(m sdk.Msg, nth int) *outcome {
				if fmt.Sprintf("%T", m) == tc.msg && nth == 0 {
					return &outcome{apply: tc.landed, err: notIncluded}
				}
				return nil
			}
			au := c.open("GPU-a", settlementtypes.AUDIT_REASON_REQUESTED)
			h := start(t, c, &testRunner{}, nil)
			h.waitState(t, au.Id, "correct")
			require.Len(t, messages[*settlementtypes.MsgAnswerAudit](c), tc.answers)
			require.Len(t, messages[*settlementtypes.MsgProveAudit](c), tc.proofs)
		})
	}
}

// TestRestartMidAudit: an agent stopped between answer and proof leaves
// nothing on disk; the next one finds the audit ANSWERED, recomputes the
// transcript from the chain's seed, checks its root is the chain's and
// proves.
func TestRestartMidAudit(t *testing.T) {
	c := newFakeChain()
	c.decide = func(m sdk.Msg, _ int) *outcome {
		if _, ok := m.(*settlementtypes.MsgProveAudit); ok {
			return &outcome{err: notIncluded} // the first agent's proofs never land
		}
		return nil
	}
	au := c.open("GPU-a", settlementtypes.AUDIT_REASON_RANDOM)
	first := start(t, c, &testRunner{}, nil)
	require.Eventually(t, func() bool { return len(messages[*settlementtypes.MsgProveAudit](c)) > 0 }, 10*time.Second, 5*time.Millisecond)
	first.stop()
	require.Equal(t, settlementtypes.AUDIT_STATUS_ANSWERED, c.audit(au.Id).Status)
	sentBefore := len(messages[*settlementtypes.MsgProveAudit](c))

	c.mu.Lock()
	c.decide = nil
	c.mu.Unlock()
	r := &testRunner{}
	h := start(t, c, r, nil)
	h.waitState(t, au.Id, "correct")
	runs, _, _ := r.count()
	require.Equal(t, 1, runs, "recomputed")
	require.Len(t, messages[*settlementtypes.MsgAnswerAudit](c), 1, "not answered again")
	require.Len(t, messages[*settlementtypes.MsgProveAudit](c), sentBefore+1)
	require.Contains(t, h.logs.String(), "its root is the chain's, proving")
	require.Equal(t, 0, h.count("answered"), "the answer was the first agent's")
	require.Equal(t, 1, h.count("proved"))
}

// TestRestartWithAnotherRootDoesNotProve: a recomputed transcript whose
// root is not the answered one is logged and not proved; the chain judges
// it UNPROVEN at its deadline.
func TestRestartWithAnotherRootDoesNotProve(t *testing.T) {
	c := newFakeChain()
	au := c.open("GPU-a", settlementtypes.AUDIT_REASON_RANDOM)
	c.set(au.Id, func(a *settlementtypes.Audit) {
		a.Status, a.Root = settlementtypes.AUDIT_STATUS_ANSWERED, bytes.Repeat([]byte{1}, settlementtypes.HashSize)
		a.ProveBy = time.Now().Add(time.Minute)
	})
	h := start(t, c, &testRunner{}, nil)
	h.waitState(t, au.Id, "mismatch")
	c.set(au.Id, func(a *settlementtypes.Audit) { a.ProveBy = time.Now() }) // the deadline comes
	h.waitState(t, au.Id, "unproven")
	require.Zero(t, c.sentCount())
	require.Contains(t, h.logs.String(), "is not the answered 0101")
	require.Contains(t, h.logs.String(), "not proving")
	require.Equal(t, 1, h.count("mismatch"))
	require.Equal(t, 1, h.count("unproven"))
}

// TestAuditsRunConcurrently: audits of two GPUs compute at once (the
// runner holds each until both started), each on its GPU, and both pass.
func TestAuditsRunConcurrently(t *testing.T) {
	c := newFakeChain()
	a := c.open("GPU-a", settlementtypes.AUDIT_REASON_RANDOM)
	b := c.open("GPU-b", settlementtypes.AUDIT_REASON_REQUESTED)
	r := &testRunner{gate: make(chan struct{}), started: make(chan string, 2)}
	h := start(t, c, r, nil)
	var gpus []string
	for range 2 {
		select {
		case g := <-r.started:
			gpus = append(gpus, g)
		case <-time.After(10 * time.Second):
			t.Fatalf("only %v started: audits run one after another", gpus)
		}
	}
	slices.Sort(gpus)
	require.Equal(t, []string{"GPU-a", "GPU-b"}, gpus)
	require.True(t, h.Holds("GPU-a"))
	require.True(t, h.Holds("GPU-b"))
	require.False(t, h.Holds("GPU-c"))
	close(r.gate)
	h.waitState(t, a.Id, "correct")
	h.waitState(t, b.Id, "correct")
	_, most, _ := r.count()
	require.Equal(t, 2, most)
}

// TestRequiredAudits: the required audit is asked for, without a fee, for
// each registered GPU of this machine that is idle and has no pass, or
// whose pass is in its last quarter; never again while it is live, nor
// once passed.
func TestRequiredAudits(t *testing.T) {
	// GPU-x is registered but another machine's; GPU-e is here but not
	// registered.
	c := newFakeChain("GPU-a", "GPU-b", "GPU-c", "GPU-d", "GPU-x")
	c.verified["GPU-c"] = time.Now().Add(validity)     // a fresh pass
	c.verified["GPU-d"] = time.Now().Add(validity / 8) // in its last quarter
	r := &testRunner{gate: make(chan struct{})}
	h := start(t, c, r, func(cfg *auditor.Config) {
		cfg.RequiredEvery = time.Millisecond
		cfg.Busy = func(uuid string) bool { return uuid == "GPU-b" }
	})
	requested := func() []string {
		var out []string
		for _, m := range messages[*settlementtypes.MsgRequestAudit](c) {
			require.Equal(t, signer, m.Requester)
			require.True(t, m.Fee.IsNil() || m.Fee.IsZero(), "no fee: %s", m.Fee)
			out = append(out, m.GpuUuid)
		}
		slices.Sort(out)
		return out
	}
	require.Eventually(t, func() bool { return len(requested()) == 2 }, 10*time.Second, 5*time.Millisecond)
	time.Sleep(100 * time.Millisecond) // a hundred sweeps while both are live
	require.Equal(t, []string{"GPU-a", "GPU-d"}, requested())
	require.True(t, h.Auditing("GPU-a"))
	require.True(t, h.Auditing("GPU-d"))

	close(r.gate)
	got := []string{<-h.passed, <-h.passed}
	slices.Sort(got)
	require.Equal(t, []string{"GPU-a", "GPU-d"}, got)
	time.Sleep(100 * time.Millisecond)
	require.Equal(t, []string{"GPU-a", "GPU-d"}, requested(), "passed: nothing more to ask")
	require.Equal(t, 2, h.count("requested"))
	require.Equal(t, 2, h.count("correct"))
}

// TestWithoutARunnerNothingIsAsked: on a machine where audits cannot run,
// no required audit is asked for (a miss would only cost the provider),
// and an audit the chain opens is recorded as failed, then missed.
func TestWithoutARunnerNothingIsAsked(t *testing.T) {
	c := newFakeChain("GPU-a")
	c.answerIn = 100 * time.Millisecond
	au := c.open("GPU-b", settlementtypes.AUDIT_REASON_RANDOM)
	h := start(t, c, nil, func(cfg *auditor.Config) { cfg.RequiredEvery = time.Millisecond })
	h.waitState(t, au.Id, "missed")
	require.Zero(t, c.sentCount())
	require.Equal(t, 1, h.count("failed"))
	require.True(t, strings.Contains(h.logs.String(), "audits cannot run on this machine"))
}
