package auditor

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/idlegpu/idlegpu/agent/audit"
	"github.com/idlegpu/idlegpu/chainclient"
	settlementaudit "github.com/idlegpu/idlegpu/x/settlement/audit"
	settlementtypes "github.com/idlegpu/idlegpu/x/settlement/types"
)

// proofRefusals bounds sending again a proof the chain refused: it accepts
// openings until prove_by, but refuses the same ones the same way.
const proofRefusals = 3

var (
	// errNoRunner is an audit on a machine where no runner could be loaded
	// (NVML GPUs without the CUDA driver library).
	errNoRunner = fmt.Errorf("%w: no audit runner for this GPU backend", audit.ErrUnavailable)
	// errLate is an audit whose deadline passed before the agent's part.
	errLate = errors.New("deadline passed")
)

// follow takes one audit from where the chain has it to its verdict. An
// agent that stops meanwhile forgets it: its next run follows it again.
func (a *Auditor) follow(ctx context.Context, au settlementtypes.Audit, st *AuditState) {
	a.work(ctx, au, st)
	if ctx.Err() == nil {
		a.awaitVerdict(ctx, au.Id, st)
	}
	if ctx.Err() != nil {
		a.forget(au.Id)
	}
}

// work does the agent's part: the transcript, the root unless the chain
// has it already (then it must be the same), the openings. It returns when
// that part is done or cannot be; the verdict says the rest.
func (a *Auditor) work(ctx context.Context, au settlementtypes.Audit, st *AuditState) {
	tr, err := a.transcript(ctx, &au, st)
	if err != nil {
		if ctx.Err() == nil {
			state := StateFailed
			if errors.Is(err, errLate) {
				state = StateLate
			}
			a.fail(ctx, st, state, fmt.Errorf("transcript: %w", err))
		}
		return
	}
	if au.Status == settlementtypes.AUDIT_STATUS_ANSWERED {
		// Found answered (a restart between answer and proof): the seed
		// gives the same transcript, unless this GPU computed it wrong.
		if !bytes.Equal(tr.Root(), au.Root) {
			a.fail(ctx, st, StateMismatch, fmt.Errorf("recomputed root %X is not the answered %X: not proving", tr.Root(), au.Root))
			return
		}
		a.cfg.Log.Info("audit recomputed: its root is the chain's, proving", "audit", au.Id, "gpu", au.GpuUuid)
		a.update(st, func(st *AuditState) { st.State = StateAnswered })
	} else if !a.answer(ctx, &au, tr, st) {
		return
	}
	a.prove(ctx, &au, tr, st)
}

// deadline is when the chain stops waiting for the agent's next step, as
// last read: answer_by for an OPEN audit, prove_by for an ANSWERED one.
func deadline(au settlementtypes.Audit) time.Time {
	if au.Status == settlementtypes.AUDIT_STATUS_ANSWERED {
		return au.ProveBy
	}
	return au.AnswerBy
}

// transcript computes the audit's transcript on its GPU, once however the
// deadline moves: the chain decides when it is too late. At the deadline
// the audit is read again, and the work goes on while it keeps its status
// (slow blocks moved the deadline, or the verdict is not given yet).
func (a *Auditor) transcript(ctx context.Context, au *settlementtypes.Audit, st *AuditState) (*settlementtypes.AuditTranscript, error) {
	if a.runner == nil {
		return nil, errNoRunner
	}
	start := time.Now()
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type result struct {
		states settlementaudit.States
		err    error
	}
	done := make(chan result, 1)
	a.setComputing(au.GpuUuid, true)
	go func() {
		defer a.setComputing(au.GpuUuid, false)
		states, err := a.runner.Run(cctx, au.GpuUuid, au.Seed, au.Shape.Shape())
		done <- result{states, err}
	}()
	for {
		timer := time.NewTimer(max(deadline(*au).Sub(a.cfg.Now()), a.cfg.Poll))
		select {
		case r := <-done:
			timer.Stop()
			if r.err != nil {
				return nil, r.err
			}
			tr := settlementtypes.NewAuditTranscriptWith(r.states, parallel)
			took := time.Since(start)
			a.update(st, func(st *AuditState) { st.Seconds = took.Seconds() })
			a.cfg.Log.Info("audit transcript computed", "audit", au.Id, "gpu", au.GpuUuid, "seconds", took.Seconds(),
				"expected_ms", au.ExpectedMs, "leaves", au.Shape.Shape().Leaves())
			return tr, nil
		case <-ctx.Done():
			timer.Stop()
			cancel()
			<-done
			return nil, ctx.Err()
		case <-timer.C:
		}
		fresh, err := a.cfg.Queries.Audit(ctx, au.Id)
		switch {
		case err != nil:
			continue // the node may be away: the chain's answer decides
		case fresh.Status != au.Status:
			cancel()
			<-done
			return nil, fmt.Errorf("%w: the audit is %s", errLate, fresh.Status)
		case deadline(fresh).After(deadline(*au)):
			a.cfg.Log.Info("audit deadline moved by slow blocks: computing on", "audit", au.Id,
				"from", deadline(*au), "to", deadline(fresh))
			a.update(st, func(st *AuditState) { st.AnswerBy, st.ProveBy = fresh.AnswerBy, fresh.ProveBy })
		}
		*au = fresh
	}
}

// setComputing marks a GPU as running an audit's workload (Holds).
func (a *Auditor) setComputing(uuid string, on bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if on {
		a.computing[uuid] = true
	} else {
		delete(a.computing, uuid)
	}
}

// answer sends the root until the chain has it. A tx not seen in a block
// in time may land later, so the chain is asked before each new send: a
// landed answer is never sent again.
func (a *Auditor) answer(ctx context.Context, au *settlementtypes.Audit, tr *settlementtypes.AuditTranscript, st *AuditState) bool {
	msg := &settlementtypes.MsgAnswerAudit{Signer: a.cfg.Signer, AuditId: au.Id, Root: tr.Root()}
	for {
		_, err := a.cfg.Chain.Submit(ctx, msg)
		fresh, ok := a.reread(ctx, au.Id)
		if !ok {
			return false
		}
		switch {
		case fresh.Status == settlementtypes.AUDIT_STATUS_ANSWERED && bytes.Equal(fresh.Root, msg.Root):
			if err != nil {
				a.cfg.Log.Info("audit answer landed after all", "audit", au.Id, "err", err)
			}
			*au = fresh
			a.update(st, func(st *AuditState) { st.ProveBy = fresh.ProveBy })
			a.setState(st, StateAnswered, nil)
			a.cfg.Log.Info("audit answered", "audit", au.Id, "gpu", au.GpuUuid, "height", fresh.AnsweredHeight, "prove_by", fresh.ProveBy)
			return true
		case fresh.Status != settlementtypes.AUDIT_STATUS_OPEN:
			a.fail(ctx, st, StateLate, fmt.Errorf("%w: the audit is %s (last send: %v)", errLate, fresh.Status, err))
			return false
		case refused(err):
			state := StateFailed
			if a.cfg.Now().After(fresh.AnswerBy) {
				state = StateLate
			}
			a.fail(ctx, st, state, fmt.Errorf("answer refused: %w", err))
			return false
		}
		a.cfg.Log.Warn("audit answer not in a block: sending it again", "audit", au.Id, "answer_by", fresh.AnswerBy, "err", err)
		*au = fresh
		if !a.sleep(ctx) {
			return false
		}
	}
}

// prove waits for the samples and sends their openings until the chain
// has judged them; a proof not seen in a block is checked on chain before
// it is sent again.
func (a *Auditor) prove(ctx context.Context, au *settlementtypes.Audit, tr *settlementtypes.AuditTranscript, st *AuditState) {
	samples, ok := a.samples(ctx, au, st)
	if !ok {
		return
	}
	shape := au.Shape.Shape()
	msg := &settlementtypes.MsgProveAudit{Signer: a.cfg.Signer, AuditId: au.Id,
		Openings: make([]settlementtypes.AuditOpening, len(samples.Leaves))}
	for i, leaf := range samples.Leaves {
		msg.Openings[i] = tr.Opening(shape, leaf)
	}
	refusals := 0
	for {
		_, err := a.cfg.Chain.Submit(ctx, msg)
		fresh, ok := a.reread(ctx, au.Id)
		if !ok {
			return
		}
		switch {
		case fresh.Status == settlementtypes.AUDIT_STATUS_CORRECT || fresh.Status == settlementtypes.AUDIT_STATUS_WRONG:
			// Only openings give these verdicts: the proof is in.
			a.setState(st, StateProved, nil)
			return
		case fresh.Status != settlementtypes.AUDIT_STATUS_ANSWERED:
			a.fail(ctx, st, StateLate, fmt.Errorf("%w: the audit is %s (last send: %v)", errLate, fresh.Status, err))
			return
		case refused(err):
			if refusals++; refusals >= proofRefusals {
				a.fail(ctx, st, StateFailed, fmt.Errorf("proof refused %d times: %w", refusals, err))
				return
			}
			a.cfg.Log.Warn("audit proof refused: sending it again", "audit", au.Id, "prove_by", fresh.ProveBy, "err", err)
		default:
			a.cfg.Log.Warn("audit proof not in a block: sending it again", "audit", au.Id, "prove_by", fresh.ProveBy, "err", err)
		}
		if !a.sleep(ctx) {
			return
		}
	}
}

// samples waits until the block after the root's block drew the leaves to
// open, as long as the audit waits for them.
func (a *Auditor) samples(ctx context.Context, au *settlementtypes.Audit, st *AuditState) (settlementtypes.QueryAuditSamplesResponse, bool) {
	for {
		res, drawn, err := a.cfg.Queries.AuditSamples(ctx, au.Id)
		if err == nil && drawn {
			a.update(st, func(st *AuditState) { st.ProveBy = res.ProveBy })
			return res, true
		}
		if err == nil { // not drawn yet, or no longer waiting for them
			if fresh, err := a.cfg.Queries.Audit(ctx, au.Id); err == nil && fresh.Status != settlementtypes.AUDIT_STATUS_ANSWERED {
				a.fail(ctx, st, StateLate, fmt.Errorf("%w: the audit is %s before its samples were read", errLate, fresh.Status))
				return res, false
			}
		}
		if !a.sleep(ctx) {
			return res, false
		}
	}
}

// awaitVerdict reads the audit each block until the chain judged it.
func (a *Auditor) awaitVerdict(ctx context.Context, id uint64, st *AuditState) {
	for {
		if au, err := a.cfg.Queries.Audit(ctx, id); err == nil && !au.IsLive() {
			a.judged(ctx, au, st)
			return
		}
		if !a.sleep(ctx) {
			return
		}
	}
}

// reread reads an audit, asking again while the node does not answer; ok
// is false once ctx ended.
func (a *Auditor) reread(ctx context.Context, id uint64) (settlementtypes.Audit, bool) {
	for {
		au, err := a.cfg.Queries.Audit(ctx, id)
		if err == nil {
			return au, true
		}
		if ctx.Err() != nil {
			return au, false
		}
		a.cfg.Log.Warn("audit unreadable, asking again", "audit", id, "err", err)
		if !a.sleep(ctx) {
			return au, false
		}
	}
}

// sleep waits for the next block or poll; false once ctx ended.
func (a *Auditor) sleep(ctx context.Context) bool {
	t := time.NewTimer(a.cfg.Poll)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-a.blocks.wait():
	case <-t.C:
	}
	return true
}

// refused says the chain rejected a tx (simulation, CheckTx or its block),
// as opposed to a tx that may still land or a node that did not answer.
func refused(err error) bool {
	var txErr *chainclient.TxError
	return errors.As(err, &txErr)
}

// fail logs what stopped the agent's part of an audit and records it.
func (a *Auditor) fail(ctx context.Context, st *AuditState, state string, err error) {
	a.cfg.Log.ErrorContext(ctx, "audit: the agent's part is not done; the chain judges it at its deadline",
		"audit", st.ID, "gpu", st.GPU, "state", state, "err", err)
	a.setState(st, state, err)
}
