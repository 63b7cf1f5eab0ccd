package auditor_test

import (
	"context"
	"crypto/sha256"
	"fmt"
	"sync"
	"time"

	sdk "github.com/cosmos/cosmos-sdk/types"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/idlegpu/idlegpu/chainclient"
	providertypes "github.com/idlegpu/idlegpu/x/provider/types"
	settlementaudit "github.com/idlegpu/idlegpu/x/settlement/audit"
	settlementtypes "github.com/idlegpu/idlegpu/x/settlement/types"
)

const (
	provider = "idle1provider"
	signer   = "idle1agent"
	validity = 7 * 24 * time.Hour
)

// shape is a small audit: 32 leaves, each a few table reads, so a
// transcript takes milliseconds.
var shape = settlementaudit.Shape{TableItems: 16384, Lanes: 8, Segments: 4, SegmentSteps: 8}

// entropy stands for the header hash that draws every fake audit's samples.
var entropy = []byte("the fake block hash")

// outcome is what the fake chain does with one message of a Submit: apply
// it or not, and what Submit returns.
type outcome struct {
	apply bool
	err   error
}

// fakeChain is x/settlement's audit rules in memory, with the chain's
// deadlines on the wall clock: an OPEN audit past answer_by reads MISSED,
// an ANSWERED one past prove_by UNPROVEN, as after the chain's EndBlock.
// Samples are drawn the second time they are asked for (the next block).
type fakeChain struct {
	mu       sync.Mutex
	audits   map[uint64]*settlementtypes.Audit
	reads    map[uint64]int // AuditSamples calls since the answer
	verified map[string]time.Time
	gpus     []string // the provider's registered GPUs
	nextID   uint64
	// sent is every message submitted, in order.
	sent []sdk.Msg
	// decide, when set, may change what happens to a message (nil: the
	// default, applied and included).
	decide func(m sdk.Msg, nth int) *outcome
	// answerIn is the answer deadline of the audits it opens.
	answerIn time.Duration
}

func newFakeChain(gpus ...string) *fakeChain {
	return &fakeChain{audits: map[uint64]*settlementtypes.Audit{}, reads: map[uint64]int{}, verified: map[string]time.Time{},
		gpus: gpus, nextID: 1, answerIn: time.Minute}
}

// open opens an audit of uuid as the chain does, and returns it.
func (c *fakeChain) open(uuid string, reason settlementtypes.AuditReason) settlementtypes.Audit {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.openLocked(uuid, reason)
}

func (c *fakeChain) openLocked(uuid string, reason settlementtypes.AuditReason) settlementtypes.Audit {
	id := c.nextID
	c.nextID++
	seed := sha256.Sum256(fmt.Appendf(nil, "seed %d", id))
	now := time.Now()
	a := &settlementtypes.Audit{
		Id: id, Provider: provider, GpuUuid: uuid, Model: "idlegpu simulated GPU", Workload: settlementaudit.MemWalkV1Name,
		Seed: seed[:], Reason: reason, Shape: settlementtypes.NewAuditShape(shape), ExpectedMs: 20, Samples: 16,
		OpenedAt: now, Deadline: now.Add(c.answerIn), AnswerBy: now.Add(c.answerIn), Status: settlementtypes.AUDIT_STATUS_OPEN,
	}
	c.audits[id] = a
	return *a
}

// set changes a stored audit.
func (c *fakeChain) set(id uint64, f func(a *settlementtypes.Audit)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f(c.audits[id])
}

// judge gives due verdicts, as the chain's EndBlock would. The caller holds c.mu.
func (c *fakeChain) judge() {
	now := time.Now()
	for _, a := range c.audits {
		switch {
		case a.Status == settlementtypes.AUDIT_STATUS_OPEN && now.After(a.AnswerBy):
			a.Status = settlementtypes.AUDIT_STATUS_MISSED
		case a.Status == settlementtypes.AUDIT_STATUS_ANSWERED && now.After(a.ProveBy):
			a.Status = settlementtypes.AUDIT_STATUS_UNPROVEN
		}
	}
}

func (c *fakeChain) audit(id uint64) settlementtypes.Audit {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.judge()
	return *c.audits[id]
}

// sentCount is how many messages were submitted.
func (c *fakeChain) sentCount() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.sent)
}

// messages are the sent messages of type T.
func messages[T sdk.Msg](c *fakeChain) []T {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []T
	for _, m := range c.sent {
		if t, ok := m.(T); ok {
			out = append(out, t)
		}
	}
	return out
}

// Audits implements auditor.Queries.
func (c *fakeChain) Audits(_ context.Context, p string, st settlementtypes.AuditStatus) ([]settlementtypes.Audit, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.judge()
	var out []settlementtypes.Audit
	for id := uint64(1); id < c.nextID; id++ {
		if a := c.audits[id]; a != nil && a.Provider == p && a.Status == st {
			out = append(out, *a)
		}
	}
	return out, nil
}

// Audit implements auditor.Queries.
func (c *fakeChain) Audit(_ context.Context, id uint64) (settlementtypes.Audit, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.judge()
	a, ok := c.audits[id]
	if !ok {
		return settlementtypes.Audit{}, status.Errorf(codes.NotFound, "audit %d", id)
	}
	return *a, nil
}

// samples are an answered audit's sampled leaves.
func samples(a settlementtypes.Audit) []uint64 {
	return settlementaudit.SampleLeaves(entropy, a.Id, a.Root, a.Shape.Shape().Leaves(), a.Samples)
}

// AuditSamples implements auditor.Queries.
func (c *fakeChain) AuditSamples(_ context.Context, id uint64) (settlementtypes.QueryAuditSamplesResponse, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.judge()
	a := c.audits[id]
	if a.Status != settlementtypes.AUDIT_STATUS_ANSWERED {
		return settlementtypes.QueryAuditSamplesResponse{}, false, nil
	}
	if c.reads[id]++; c.reads[id] < 2 {
		return settlementtypes.QueryAuditSamplesResponse{}, false, nil
	}
	return settlementtypes.QueryAuditSamplesResponse{Leaves: samples(*a), ProveBy: a.ProveBy}, true, nil
}

// GPUVerification implements auditor.Queries.
func (c *fakeChain) GPUVerification(_ context.Context, uuid string) (settlementtypes.QueryGPUVerificationResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	until := c.verified[uuid]
	return settlementtypes.QueryGPUVerificationResponse{
		Verification: settlementtypes.GPUVerification{GpuUuid: uuid, VerifiedUntil: until},
		Verified:     until.After(time.Now()),
	}, nil
}

// ProviderGPUs implements auditor.Queries.
func (c *fakeChain) ProviderGPUs(_ context.Context, p string) ([]providertypes.GPU, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []providertypes.GPU
	for _, g := range c.gpus {
		out = append(out, providertypes.GPU{Uuid: g, Provider: p})
	}
	return out, nil
}

// refusal is the chain's rejection of a tx.
func refusal(format string, args ...any) error {
	return &chainclient.TxError{Codespace: settlementtypes.ModuleName, Code: 99, Log: fmt.Sprintf(format, args...)}
}

// Submit implements auditor.Submitter: all messages or none, as a tx.
func (c *fakeChain) Submit(_ context.Context, msgs ...sdk.Msg) (*sdk.TxResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.judge()
	var result error
	apply := true
	for _, m := range msgs {
		nth := 0
		for _, s := range c.sent {
			if fmt.Sprintf("%T", s) == fmt.Sprintf("%T", m) {
				nth++
			}
		}
		c.sent = append(c.sent, m)
		if c.decide != nil {
			if o := c.decide(m, nth); o != nil {
				apply, result = apply && o.apply, o.err
			}
		}
	}
	if !apply {
		return nil, result
	}
	for _, m := range msgs { // checked first, as a tx's messages all land or none
		if err := c.check(m); err != nil {
			return nil, err
		}
	}
	for _, m := range msgs {
		c.apply(m)
	}
	return &sdk.TxResponse{Height: 1}, result
}

// check is the chain's refusal of a message, or nil.
func (c *fakeChain) check(m sdk.Msg) error {
	switch m := m.(type) {
	case *settlementtypes.MsgAnswerAudit:
		if a := c.audits[m.AuditId]; a.Status != settlementtypes.AUDIT_STATUS_OPEN {
			return refusal("audit %d is %s", a.Id, a.Status)
		}
	case *settlementtypes.MsgProveAudit:
		a := c.audits[m.AuditId]
		if a.Status != settlementtypes.AUDIT_STATUS_ANSWERED || c.reads[a.Id] < 2 {
			return refusal("audit %d is %s, samples drawn: %v", a.Id, a.Status, c.reads[a.Id] >= 2)
		}
		if _, err := settlementtypes.AuditVerdict(a.Seed, a.Root, a.Shape.Shape(), samples(*a), m.Openings); err != nil {
			return refusal("%v", err)
		}
	case *settlementtypes.MsgRequestAudit:
		for _, a := range c.audits {
			if a.GpuUuid == m.GpuUuid && a.IsLive() {
				return refusal("GPU %s has a live audit", m.GpuUuid)
			}
		}
	}
	return nil
}

// apply runs a checked message.
func (c *fakeChain) apply(m sdk.Msg) {
	switch m := m.(type) {
	case *settlementtypes.MsgAnswerAudit:
		a := c.audits[m.AuditId]
		a.Status, a.Root, a.AnsweredHeight = settlementtypes.AUDIT_STATUS_ANSWERED, m.Root, 1
		a.ProveDeadline, a.ProveBy = time.Now().Add(time.Minute), time.Now().Add(time.Minute)
	case *settlementtypes.MsgProveAudit:
		a := c.audits[m.AuditId]
		a.Status, _ = settlementtypes.AuditVerdict(a.Seed, a.Root, a.Shape.Shape(), samples(*a), m.Openings)
		if a.Status == settlementtypes.AUDIT_STATUS_CORRECT {
			c.verified[a.GpuUuid] = time.Now().Add(validity)
		}
	case *settlementtypes.MsgRequestAudit:
		c.openLocked(m.GpuUuid, settlementtypes.AUDIT_REASON_REQUIRED)
	}
}
